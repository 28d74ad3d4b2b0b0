package cli_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient/recording"
	"github.com/kubewire/kubewire/controller/cli"
)

// stopAt runs args (against kubeconfig, when there is one) and stops it with
// sig, as NotifyContext reports it: once ready is closed, or once stdout or
// stderr holds cue; before the command even starts when there is neither. It
// returns the exit code, stdout and stderr.
func stopAt(t *testing.T, kubeconfig string, args []string, sig syscall.Signal, ready <-chan struct{}, cue string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	if kubeconfig != "" {
		args = append(args, "--kubeconfig", kubeconfig)
	}
	stdout := &signalWriter{want: cue, seen: make(chan struct{})}
	stderr := &signalWriter{want: cue, seen: make(chan struct{})}
	var cued [2]<-chan struct{} // nil, never ready, without a cue
	if cue != "" {
		cued = [2]<-chan struct{}{stdout.seen, stderr.seen}
	}
	if ready == nil && cue == "" {
		cancel(&cli.Interrupt{Signal: sig})
	}
	done := make(chan int, 1)
	go func() {
		done <- cli.Main(ctx, args, cli.Env{Stdout: stdout, Stderr: stderr, Getenv: func(string) string { return "" }})
	}()
	if ready != nil || cue != "" {
		select {
		case <-ready:
		case <-cued[0]:
		case <-cued[1]:
		case code := <-done:
			t.Fatalf("%v ended before the signal: exit %d\n%s%s", args, code, stdout, stderr)
		case <-time.After(time.Minute): // a watchdog: the cue never came
			t.Fatalf("%v: no %q within a minute:\n%s%s", args, cue, stdout, stderr)
		}
		cancel(&cli.Interrupt{Signal: sig})
	}
	select {
	case code := <-done:
		return code, stdout.String(), stderr.String()
	case <-time.After(time.Minute):
		t.Fatalf("%v still running a minute after %v:\n%s%s", args, sig, stdout, stderr)
	}
	return 0, "", ""
}

// hold is where holdingServer stops answering.
type hold int

const (
	holdAll   hold = iota // every request, discovery too
	holdList              // all but discovery: /version and the first list are never answered
	holdWatch             // lists are answered (empty, at resourceVersion 10); a watch gets its 200, then nothing
)

// holdingServer is an API server that answers discovery (from testdata) and
// holds the request that hold names until the client gives up. held is closed
// when that request arrives: the command is then, for sure, in the phase the
// test means, with no sleep to get it there.
func holdingServer(t *testing.T, h hold) (kubeconfig string, held <-chan struct{}) {
	t.Helper()
	ch := make(chan struct{})
	var once sync.Once
	wait := func(r *http.Request) {
		once.Do(func() { close(ch) })
		<-r.Context().Done()
	}
	serve := func(w http.ResponseWriter, r *http.Request) {
		if watch := r.URL.Query().Get("watch"); h == holdWatch && watch != "true" && watch != "1" {
			w.Header().Set("Content-Type", "application/json")
			if r.URL.Path == "/version" { // 1.33: a LIST, in one piece (listwatch.ListCheapest)
				io.WriteString(w, `{"major":"1","minor":"33","gitVersion":"v1.33.0"}`)
				return
			}
			io.WriteString(w, `{"kind":"List","apiVersion":"v1","metadata":{"resourceVersion":"10"},"items":[]}`)
			return
		}
		if h == holdWatch {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(200)
			w.(http.Flusher).Flush()
		}
		wait(r)
	}
	if h != holdAll {
		return discoveryKubeconfig(t, serve), ch
	}
	ts := httptest.NewTLSServer(http.HandlerFunc(serve))
	t.Cleanup(ts.Close)
	return insecureKubeconfig(t, ts.URL), ch
}

// One table of every command × phase × signal (issues 29 and 39; README's exit
// codes, and the Guarantees of this package's doc.go): Ctrl-C or SIGTERM always gives a clean stop and a
// summary line; a command whose designed end is the signal (run, watch, sync
// --watch, demo --ui, record without a limit) then exits 0 once its first list
// is complete, and one stopped before its work was done exits 128 + the
// signal: 130 for SIGINT, 143 for SIGTERM. The finding of issue 39: record
// stopped before its first list was complete said "0 objects listed" and
// exited 0, where watch exited 130.
//
// The phases: before the first list is complete (the server holds it; for
// api-resources and run foo, discovery), and after it, while the watch is open
// (the server holds the watch; sync says "synced" at -v 1 first).
func TestExit_every_command_phase_and_signal(t *testing.T) {
	type end struct {
		short bool   // stopped short of its work: exit 128 + the signal; else 0
		says  string // in the summary, on stderr (the demo's on stdout)
	}
	stopped := func(says string) *end { return &end{short: true, says: says} }
	done := func(says string) *end { return &end{says: says} }
	dir := t.TempDir()
	rec := func(name string) string { return filepath.Join(dir, name+".rec") }
	for _, tt := range []struct {
		name   string
		args   []string
		before hold   // what the server holds in the first phase (the demo has a server of its own)
		synced string // the cue that the list is done; "": the watch arriving
		first  *end   // stopped before the first list was complete
		after  *end   // stopped while watching; nil: the command ends by itself there
	}{
		{"get_json", []string{"get", "pods", "-o", "json"}, holdList, "", stopped(": get pods did not finish\n"), nil},
		{"get_table", []string{"get", "pods"}, holdList, "", stopped(": get pods did not finish\n"), nil},
		{"get_one", []string{"get", "pods", "web", "-o", "yaml"}, holdList, "", stopped(": get pods web did not finish\n"), nil},
		{"api_resources", []string{"api-resources"}, holdAll, "", stopped(": api-resources did not finish\n"), nil},
		{"sync", []string{"sync", "pods"}, holdList, "", stopped(": 0 objects cached\n"), nil},
		{"sync_dump", []string{"sync", "pods", "--dump"}, holdList, "", stopped(": 0 objects cached\n"), nil},
		{"sync_watch", []string{"sync", "pods", "--watch", "-v", "1"}, holdList, "msg=synced",
			stopped(": 0 objects cached\n"), done("\nsynced 0 objects in ")},
		{"sync_until_events", []string{"sync", "pods", "--until-events", "5", "-v", "1"}, holdList, "msg=synced",
			stopped(": 0 objects cached\n"), stopped("\ninterrupted after 0 of 5 events\n")},
		{"watch", []string{"watch", "pods"}, holdList, "",
			stopped("interrupted before the first list was complete: watched 0 events\n"), done("watched 0 events\n")},
		{"record", []string{"record", "pods", "-o", rec("a")}, holdList, "",
			stopped("interrupted before the first list was complete: recorded pods "), done("recorded pods ")},
		{"record_events", []string{"record", "pods", "-o", rec("b"), "--events", "5"}, holdList, "",
			stopped("interrupted before the first list was complete: recorded pods "), stopped("interrupted: recorded pods ")},
		{"record_duration", []string{"record", "pods", "-o", rec("c"), "--duration", "1h"}, holdList, "",
			stopped("interrupted before the first list was complete: recorded pods "), stopped("interrupted: recorded pods ")},
		{"record_stdout", []string{"record", "pods", "-o", "-"}, holdList, "",
			stopped("interrupted before the first list was complete: recorded pods "), done("recorded pods ")},
		{"run", []string{"run"}, holdList, "", done("kubewire run: stopped\n"), done("kubewire run: stopped\n")},
		{"run_foo_before_its_CRD_is_known", []string{"run", "foo"}, holdAll, "", stopped(": run foo did not finish\n"), nil},
		{"demo", []string{"demo"}, 0, "", stopped("\ndemo: interrupted after "), nil},
		{"demo_ui", []string{"demo", "--ui", "127.0.0.1:0"}, 0, "the story is told",
			stopped("\ndemo: interrupted after "), done("\ndemo: done in ")},
	} {
		for _, phase := range []struct {
			name string
			want *end
		}{{"before_the_first_list", tt.first}, {"while_watching", tt.after}} {
			if phase.want == nil {
				continue
			}
			for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
				t.Run(tt.name+"/"+phase.name+"/"+sig.String(), func(t *testing.T) {
					var kc, cue string
					var ready <-chan struct{}
					switch {
					case tt.args[0] == "demo" && phase.want == tt.first:
						// An API server of its own: stopped before it starts.
					case tt.args[0] == "demo":
						cue = tt.synced
					case phase.want == tt.first:
						kc, ready = holdingServer(t, tt.before)
					case tt.synced != "":
						kc, _ = holdingServer(t, holdWatch)
						cue = tt.synced
					default:
						kc, ready = holdingServer(t, holdWatch)
					}
					code, stdout, stderr := stopAt(t, kc, tt.args, sig, ready, cue)
					want := 0
					if phase.want.short {
						want = 128 + int(sig)
					}
					summary := stderr
					if tt.args[0] == "demo" {
						summary = stdout
					}
					if code != want || !strings.Contains(summary, phase.want.says) || strings.Contains(stderr, "error: ") {
						t.Errorf("%v, %v %s: exit %d, want %d and a summary holding %q:\nstdout:\n%s\nstderr:\n%s",
							tt.args, sig, strings.ReplaceAll(phase.name, "_", " "), code, want, phase.want.says, stdout, stderr)
					}
					if phase.want.short && tt.args[0] != "demo" && tt.args[0] != "record" && stdout != "" {
						t.Errorf("stopped short, stdout %q: want nothing", stdout)
					}
					if tt.args[0] == "record" {
						checkStoppedRecording(t, tt.args[3], stdout, phase.want == tt.first)
					}
				})
			}
		}
	}
}

// checkStoppedRecording fails unless what record wrote (the file at path, or
// stdout for "-") parses, and says in itself whether it holds a complete list.
func checkStoppedRecording(t *testing.T, path, stdout string, partial bool) {
	t.Helper()
	var r *recording.Recording
	var err error
	if path == "-" {
		r, err = recording.Parse(strings.NewReader(stdout))
	} else {
		r, err = recording.Open(path)
	}
	if err != nil {
		t.Fatalf("the recording does not parse: %v", err)
	}
	const note = "stopped before the first list was complete"
	says := false
	for _, c := range r.Comments {
		says = says || strings.Contains(c, note)
	}
	if says != partial {
		t.Errorf("the recording says %q: %v, want %v; comments %q", note, says, partial, r.Comments)
	}
}

// Record ended by its --duration before any list was complete (a server that
// never answers) made nothing that replays: a failure, exit 1, not 0 with "0
// objects listed".
func TestRecord_duration_over_before_the_first_list_exits_1(t *testing.T) {
	kc, _ := holdingServer(t, holdList)
	var stdout, stderr bytes.Buffer
	path := filepath.Join(t.TempDir(), "pods.rec")
	code := cli.Main(context.Background(), []string{"record", "pods", "-o", path, "--duration", "1ms", "--kubeconfig", kc},
		cli.Env{Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }})
	if code != 1 || !strings.HasPrefix(stderr.String(), "error: record pods: no complete list within 1ms") || strings.Count(stderr.String(), "\n") != 1 {
		t.Errorf("exit %d, stderr %q; want exit 1 and one line saying no list was complete", code, stderr.String())
	}
	checkStoppedRecording(t, path, "", true)
}
