//go:build !unix

package kubeconfig

import "os/exec"

// processGroup does nothing where there are no unix process groups: cancelling
// kills the plugin alone (exec.Cmd's default), and pluginWaitDelay still bounds
// the wait for pipes a child of it holds.
func processGroup(cmd *exec.Cmd) {}
