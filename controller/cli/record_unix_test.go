//go:build unix

package cli_test

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kubewire/kubewire/controller/cli"
)

// record -o a named pipe nobody reads waits for a reader, as a shell's > does,
// but Ctrl-C still ends it, cleanly (issue 16: the open blocked past every signal),
// and with 130: nothing was recorded (issue 29).
func TestRecord_into_a_pipe_nobody_reads_ends_on_ctrl_c(t *testing.T) {
	kc, _ := recordServer(t)
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	ctx, interrupt := context.WithCancel(context.Background())
	defer interrupt()
	stderr := &signalWriter{want: "record open ", seen: make(chan struct{})}
	done := make(chan int, 1)
	go func() {
		done <- cli.Main(ctx, []string{"record", "cm", "-n", "rec", "-o", fifo, "--trace"},
			cli.Env{Stdout: &strings.Builder{}, Stderr: stderr, Getenv: func(k string) string {
				return map[string]string{"KUBECONFIG": kc}[k]
			}})
	}()
	select {
	case <-stderr.seen:
	case code := <-done:
		t.Fatalf("record ended before opening its file: exit %d\n%s", code, stderr)
	}
	interrupt()
	select {
	case code := <-done:
		if code != 130 || !strings.Contains(stderr.String(), "interrupted after ") {
			t.Fatalf("exit %d, want 130 and a summary line:\n%s", code, stderr)
		}
	case <-time.After(time.Minute): // a watchdog, not a wait: the old code never returned
		t.Fatalf("record still blocked a minute after Ctrl-C:\n%s", stderr)
	}
}
