package cli_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kubewire/kubewire/controller/cli"
)

// stopAt runs args with a context that SIGTERM (as NotifyContext reports it)
// cancels once stderr holds cue, or once ready is closed when cue is "", and
// returns the exit code, stdout and stderr.
func stopAt(t *testing.T, kubeconfig string, args []string, cue string, ready <-chan struct{}) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	stderr := &signalWriter{want: cue, seen: make(chan struct{})}
	if cue != "" {
		ready = stderr.seen
	}
	var stdout bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- cli.Main(ctx, append(args, "--kubeconfig", kubeconfig), cli.Env{Stdout: &stdout, Stderr: stderr, Getenv: func(string) string { return "" }})
	}()
	select {
	case <-ready:
	case code := <-done:
		t.Fatalf("%v ended before the signal: exit %d\n%s", args, code, stderr)
	case <-time.After(time.Minute): // a watchdog: the cue never came
		t.Fatalf("%v: no %q within a minute:\n%s", args, cue, stderr)
	}
	cancel(&cli.Interrupt{Signal: syscall.SIGTERM})
	select {
	case code := <-done:
		return code, stdout.String(), stderr.String()
	case <-time.After(time.Minute):
		t.Fatalf("%v still running a minute after SIGTERM:\n%s", args, stderr)
	}
	return 0, "", ""
}

// blockingServer is an API server that never answers: with discovery, it
// answers discovery (from testdata) and nothing else. arrived is closed at the
// first request left unanswered.
func blockingServer(t *testing.T, discovery bool) (kubeconfig string, arrived <-chan struct{}) {
	t.Helper()
	ch := make(chan struct{})
	var once sync.Once
	hang := func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { close(ch) })
		<-r.Context().Done()
	}
	if discovery {
		return discoveryKubeconfig(t, hang), ch
	}
	ts := httptest.NewTLSServer(http.HandlerFunc(hang))
	t.Cleanup(ts.Close)
	return insecureKubeconfig(t, ts.URL), ch
}

// Issue 29: a command stopped before its work was done keeps its one-line
// summary (not "error: context canceled" and exit 1, issue 16) and exits 143 on
// SIGTERM (130 on SIGINT); before, every one of these exited 0. The server answers discovery (but for api-resources) and never a
// list.
func TestExit_commands_stopped_short_exit_143_on_SIGTERM(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		line string // the summary on stderr
	}{
		{"get", []string{"get", "pods", "-o", "json"}, ": get pods did not finish\n"},
		{"get_names", []string{"get", "pods", "-o", "name"}, ": get pods did not finish\n"},
		{"get_one", []string{"get", "pods", "web", "-o", "yaml"}, ": get pods web did not finish\n"},
		{"sync", []string{"sync", "pods"}, ": 0 objects cached\n"},
		{"sync_dump", []string{"sync", "pods", "--dump"}, ": 0 objects cached\n"},
		{"sync_watch_before_synced", []string{"sync", "pods", "--watch"}, ": 0 objects cached\n"},
		{"watch_before_the_list", []string{"watch", "pods"}, "interrupted before the first list was complete: watched 0 events\n"},
		{"record_short_of_its_count", []string{"record", "pods", "-o", filepath.Join(t.TempDir(), "pods.rec"), "--events", "3"}, "0 watch events"},
		{"api_resources", []string{"api-resources"}, ": api-resources did not finish\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			kc, arrived := blockingServer(t, tt.args[0] != "api-resources")
			code, stdout, stderr := stopAt(t, kc, tt.args, "", arrived)
			if code != 143 || !strings.Contains(stderr, tt.line) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("%v, SIGTERM before the work was done: exit %d, stderr %q; want 143 and one line holding %q", tt.args, code, stderr, tt.line)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
		})
	}
}

// A command whose work was done when the signal came, or whose designed end is
// the signal, exits 0; sync --until-events and record --events stopped short of
// their count exit 143.
func TestExit_commands_whose_work_was_done_exit_0(t *testing.T) {
	kc, _ := recordServer(t)
	for _, tt := range []struct {
		name string
		args []string
		cue  string // on stderr: the work is done from here on
		want int
	}{
		{"sync_watch", []string{"sync", "pods", "--watch", "-v", "1"}, "msg=synced", 0},
		{"watch_after_the_list", []string{"watch", "pods", "--trace"}, "listwatch LISTED", 0},
		{"record_without_a_limit", []string{"record", "cm", "-n", "rec", "-o", filepath.Join(t.TempDir(), "a.rec"), "--trace"}, "record WATCH ", 0},
		{"record_short_of_its_count", []string{"record", "cm", "-n", "rec", "-o", filepath.Join(t.TempDir(), "b.rec"), "--events", "5", "--trace"}, "record WATCH ", 143},
		{"sync_short_of_until_events", []string{"sync", "pods", "--until-events", "5", "-v", "1"}, "msg=synced", 143},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := stopAt(t, kc, tt.args, tt.cue, nil)
			if code != tt.want {
				t.Errorf("%v, SIGTERM: exit %d, want %d\n%s", tt.args, code, tt.want, stderr)
			}
		})
	}
}
