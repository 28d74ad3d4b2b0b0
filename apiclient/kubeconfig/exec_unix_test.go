//go:build unix

package kubeconfig_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient/kubeconfig"
)

// holdPipe makes the named pipe FAKE_PLUGIN_HOLD: the "hold" processes of the fake
// plugin live until the test's cleanup writes to it and closes it.
func holdPipe(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hold")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	t.Cleanup(func() {
		// Non-blocking: with no reader left (the processes were killed) there is
		// nobody to let go, and the open fails at once.
		if f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	return path
}

// within fails the test unless do returns within a minute: a watchdog for calls
// that the old code never returned from, not a wait.
func within(t *testing.T, what string, do func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- do() }()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		t.Fatalf("%s: still blocked after a minute", what)
		return nil
	}
}

// A plugin that prints its credential and exits, leaving a child that holds its
// stdout (`sleep 120 &`), is a success: the request goes out with the credential
// instead of waiting for the child (issue 16: `get` waited as long as it lived).
func TestExec_a_child_left_holding_stdout_does_not_block(t *testing.T) {
	rec := newRecorder(t)
	p := newFakePlugin(t, pluginOpts{server: rec.URL, mode: "background",
		env: map[string]string{"FAKE_PLUGIN_HOLD": holdPipe(t), "FAKE_PLUGIN_TOKEN": "from-the-plugin"}})
	tr := mustTransport(t, p.config(t, nil))
	err := within(t, "a request whose plugin left a child", func() error {
		resp, err := (&http.Client{Transport: tr}).Get(rec.URL)
		if err == nil {
			resp.Body.Close()
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(rec.authorizations(), ","), "Bearer from-the-plugin"; got != want {
		t.Fatalf("Authorization %q, want %q", got, want)
	}
}

// Ctrl-C while a plugin (and a child of it) hangs ends the request at once: the
// plugin's process group is killed and the wait for its pipes is bounded.
func TestExec_a_hung_plugin_ends_with_the_request(t *testing.T) {
	rec := newRecorder(t)
	started := filepath.Join(t.TempDir(), "started")
	if err := syscall.Mkfifo(started, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	p := newFakePlugin(t, pluginOpts{server: rec.URL, mode: "hang",
		env: map[string]string{"FAKE_PLUGIN_HOLD": holdPipe(t), "FAKE_PLUGIN_STARTED": started}})
	tr := mustTransport(t, p.config(t, nil))
	ctx, interrupt := context.WithCancel(context.Background())
	go func() {
		// Opening the pipe waits for the plugin to open it: then it has started.
		if f, err := os.Open(started); err == nil {
			f.Close()
		}
		interrupt()
	}()
	err := within(t, "a request interrupted while its plugin hangs", func() error {
		req, _ := http.NewRequestWithContext(ctx, "GET", rec.URL, nil)
		resp, err := (&http.Client{Transport: tr}).Do(req)
		if err == nil {
			resp.Body.Close()
		}
		return err
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// A plugin that never finishes is stopped after the run-time bound, with an error
// saying so.
func TestExec_a_plugin_that_never_finishes_is_stopped(t *testing.T) {
	defer kubeconfig.SetPluginTimeout(200 * time.Millisecond)()
	rec := newRecorder(t)
	p := newFakePlugin(t, pluginOpts{server: rec.URL, mode: "hang", env: map[string]string{"FAKE_PLUGIN_HOLD": holdPipe(t)}})
	tr := mustTransport(t, p.config(t, nil))
	err := within(t, "a request whose plugin never finishes", func() error {
		_, err := (&http.Client{Transport: tr}).Get(rec.URL)
		return err
	})
	checkSendError(t, err, p.path, `user "plugin"`, "exec", "ran longer than 200ms and was stopped")
}
