//go:build unix

package kubeconfig

import (
	"os/exec"
	"syscall"
)

// processGroup starts cmd in a process group of its own and makes cancelling it
// kill the whole group: a plugin that is a shell script dies with the commands it
// started, instead of leaving them holding its stdout.
func processGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // minus: the group whose leader it is
	}
}
