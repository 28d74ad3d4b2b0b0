package kubeconfig

import (
	"os"
	"time"
)

// SetStdin replaces the standard input an interactive exec plugin would be given, so
// tests can tell the plugin runner "this is not a terminal" whatever `go test` was
// started from. It returns the function that puts the old one back.
func SetStdin(f *os.File) (restore func()) {
	old := stdin
	stdin = f
	return func() { stdin = old }
}

// SetPluginTimeout shortens how long an exec plugin may run, for the test of that
// bound. It returns the function that puts the old one back.
func SetPluginTimeout(d time.Duration) (restore func()) {
	old := pluginTimeout
	pluginTimeout = d
	return func() { pluginTimeout = old }
}
