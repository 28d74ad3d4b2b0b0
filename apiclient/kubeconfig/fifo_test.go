//go:build unix

package kubeconfig_test

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient/kubeconfig"
)

// A named pipe where a file should be — the kubeconfig itself, a tokenFile, a
// certificate-authority — is refused at once, naming it: opening a FIFO blocks
// until a writer comes, and no signal ends that (issue 16: it hung until killed).
func TestLoad_refuses_a_named_pipe_without_opening_it(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	config := func(name, user, cluster string) string {
		return writeFile(t, dir, name, "current-context: x\n"+
			"clusters: [{name: c, cluster: {server: https://127.0.0.1:6443"+cluster+"}}]\n"+
			"contexts: [{name: x, context: {cluster: c, user: u}}]\n"+
			"users: [{name: u, user: {"+user+"}}]\n")
	}
	for name, path := range map[string]string{
		"kubeconfig":            fifo,
		"tokenFile":             config("token-file", "tokenFile: "+fifo, ""),
		"certificate-authority": config("ca", "", ", certificate-authority: "+fifo),
	} {
		done := make(chan error, 1)
		go func() { // on the old code it never returns; the watchdog below ends the test
			_, err := kubeconfig.Load(kubeconfig.Options{Path: path})
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "named pipe") {
				t.Errorf("%s as a named pipe: %v, want an error saying so", name, err)
			}
		case <-time.After(time.Minute):
			t.Fatalf("%s as a named pipe: Load still blocked after a minute", name)
		}
	}
}
