package cli_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kubewire/kubewire/controller/cli"
	"github.com/kubewire/kubewire/controller/live"
	"github.com/kubewire/kubewire/controller/live/livetest"
	"github.com/kubewire/kubewire/controller/pipeline"
)

// uiRun is a kubewire command serving the page, run by uiCommand.
type uiRun struct {
	url    string        // the page, as the command printed it
	stdout *signalWriter // seen: the demo's story is told
	done   chan int      // the exit code, once the command returned
	stop   func() int    // Ctrl-C; returns the exit code
}

// uiCommand runs kubewire with args (which ask for --ui 127.0.0.1:0) until the
// page's URL is printed. The command is stopped when the test ends.
func uiCommand(t *testing.T, args ...string) *uiRun {
	t.Helper()
	ctx, interrupt := context.WithCancel(context.Background())
	u := &uiRun{stdout: &signalWriter{want: "the story is told", seen: make(chan struct{})}, done: make(chan int, 1)}
	stderr := &signalWriter{want: "/\n", seen: make(chan struct{})}
	go func() {
		u.done <- cli.Main(ctx, args, cli.Env{Stdout: u.stdout, Stderr: stderr, Getenv: func(string) string { return "" }})
	}()
	u.wait(t, stderr)
	m := regexp.MustCompile(`ui: the pipeline page is at (http://\S+)/\n`).FindStringSubmatch(stderr.String())
	if m == nil {
		interrupt()
		t.Fatalf("no page URL on stderr:\n%s", stderr.String())
	}
	u.url = m[1]
	stopped := false
	var code int
	u.stop = func() int {
		if !stopped {
			interrupt()
			code, stopped = <-u.done, true
		}
		return code
	}
	t.Cleanup(func() { u.stop() })
	return u
}

// wait returns once w has seen what it waits for; the command exiting first
// fails the test.
func (u *uiRun) wait(t *testing.T, w *signalWriter) {
	t.Helper()
	select {
	case <-w.seen:
	case code := <-u.done:
		t.Fatalf("the command exited %d before writing %q; output:\n%s", code, w.want, w.String())
	}
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

// events reads the page's event stream at url and hands each event to f, until
// f returns false.
func events(t *testing.T, url string, f func(event, data string) bool) {
	t.Helper()
	if err := livetest.Events(url, f); err != nil {
		t.Fatal(err)
	}
}

// quietSnapshot is the first snapshot the page is sent with nothing left to do
// in any stage: what the pipeline did, once it has done it.
func quietSnapshot(t *testing.T, url string) live.Snapshot {
	t.Helper()
	var s live.Snapshot
	events(t, url, func(event, data string) bool {
		if event != "snapshot" {
			return true
		}
		s = live.Snapshot{}
		if err := json.Unmarshal([]byte(data), &s); err != nil {
			t.Fatal(err)
		}
		for _, inf := range s.Informers {
			for _, h := range inf.Handlers {
				if h.Backlog > 0 || h.Busy {
					return true
				}
			}
			if inf.FIFO.Depth > 0 {
				return true
			}
		}
		for _, c := range s.Controllers {
			if c.Queue.Depth+c.Queue.Processing > 0 || c.Workers.Active > 0 {
				return true
			}
		}
		return false
	})
	return s
}

// What the page is told after the demo's story is what the story did: one pod
// listed (web-1), one created, made Running and deleted (web-2; a Pod's delete
// is two events, as on kube-apiserver: marked, then gone): 5 objects received,
// 5 deltas popped, web-1 left in the store, each of the two handlers handling
// 5; the deployment listed (the controller's For) queued demo/tools once,
// web-2 becoming Running once more: two reconciles.
func TestDemo_ui_snapshot_counts_what_the_story_did(t *testing.T) {
	u := uiCommand(t, "demo", "--ui", "127.0.0.1:0")
	u.wait(t, u.stdout)
	url, stop := u.url, u.stop

	s := quietSnapshot(t, url)
	if s.Command != "demo" || s.Step || len(s.Informers) != 2 || len(s.Controllers) != 1 {
		t.Fatalf("snapshot: command %q, step %v, %d informers, %d controllers; want demo, false, 2 (deployments and pods), 1", s.Command, s.Step, len(s.Informers), len(s.Controllers))
	}
	inf, ctl := s.Informers[1], s.Controllers[0]
	if inf.Name != "pods" {
		t.Fatalf("informers %s, %s; want deployments, then pods", s.Informers[0].Name, inf.Name)
	}
	if inf.Reflector.State != "watching" || inf.Reflector.Received != 5 || inf.Reflector.Relists != 0 || inf.Reflector.LastError != "" {
		t.Errorf("reflector: %+v; want watching, 5 objects received, no relist, no error", inf.Reflector)
	}
	applied := uint64(0)
	for _, n := range inf.FIFO.Events {
		applied += n
	}
	if inf.FIFO.Depth != 0 || applied != 5 {
		t.Errorf("fifo: %+v; want depth 0, 5 deltas applied", inf.FIFO)
	}
	if inf.Store.Objects != 1 || inf.Store.ResourceVersion != inf.Reflector.ResourceVersion ||
		len(inf.Store.Indexes) != 1 || inf.Store.Indexes[0] != (pipeline.Index{Name: "namespace", Values: 1}) {
		t.Errorf("store: %+v; want 1 object (web-1), at the Reflector's resourceVersion %s, in 1 namespace", inf.Store, inf.Reflector.ResourceVersion)
	}
	if len(inf.Handlers) != 2 {
		t.Fatalf("handlers: %+v; want podrestart's and the demo's", inf.Handlers)
	}
	for _, h := range inf.Handlers {
		if h.Handled != 5 || h.Backlog != 0 {
			t.Errorf("handler %s: %+v; want 5 handled, none waiting", h.Name, h)
		}
	}
	if q := ctl.Queue; q.Adds != 2 || q.Depth != 0 || q.Processing != 0 || q.Retries != 0 {
		t.Errorf("queue: %+v; want 2 adds (the deployment listed, web-2 Running), nothing left", q)
	}
	if w := ctl.Workers; w.Reconciles != 2 || w.Errors != 0 || w.Active != 0 || w.Max != 1 {
		t.Errorf("workers: %+v; want 2 reconciles, no error, idle, 1 worker", w)
	}
	if !s.Leader.Leading || s.Leader.Elected {
		t.Errorf("leader: %+v; want leading, without election", s.Leader)
	}
	if !strings.Contains(strings.Join(s.Recent, " "), "demo/web-2") {
		t.Errorf("recent: %v; want demo/web-2 among them", s.Recent)
	}

	// Following web-2: its path, hop by hop, from its ADD to its DELETE,
	// through the reconcile its change to Running caused.
	var path struct {
		Key  string     `json:"key"`
		Hops []live.Hop `json:"hops"`
	}
	getJSON(t, url+"/api/follow?key=demo/web-2", &path)
	// Three goroutines write this path: the informer's (web-2's events), the
	// worker's (the reconcile of demo/tools) and the story's (its writes, traced
	// when sent, before the event they cause, and again when answered, maybe
	// after it). Each one's hops come in its own order; across them, causes
	// come before effects.
	var own, reconcile, writes []string
	at := map[string]int{}
	for i, h := range path.Hops {
		if h.What == "" || h.File == "" {
			t.Errorf("hop %q: no explanation (what %q, file %q)", h.Line, h.What, h.File)
		}
		hop := h.Stage + " " + h.Verb + " " + h.Key
		if _, seen := at[hop]; !seen {
			at[hop] = i
		}
		switch {
		case h.Stage == "apiclient" && h.Key == "demo/web-2":
			outcome := "answered"
			if strings.HasSuffix(h.Line, " sent") {
				outcome = "sent"
				at[hop+" sent"] = i
			}
			writes = append(writes, h.Verb+" "+outcome)
		case h.Key == "demo/web-2":
			own = append(own, hop)
		default:
			reconcile = append(reconcile, hop)
		}
	}
	checkPath := func(what string, got, want []string) {
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s on the path of demo/web-2:\n%s\nwant:\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	// The delete's two events (the mark, then DELETED) come back to back:
	// the Reflector's, the FIFO's and the listeners' hops of them interleave,
	// so they are compared as a set.
	deleted := []string{
		"listwatch UPDATE demo/web-2", "fifo pop demo/web-2", "store update demo/web-2",
		"handler update demo/web-2", "handler update demo/web-2",
		"listwatch DELETE demo/web-2", "fifo pop demo/web-2", "store delete demo/web-2",
		"handler delete demo/web-2", "handler delete demo/web-2",
	}
	if len(own) > 10 {
		own = append(own[:10], sortedCopy(own[10:])...)
	}
	checkPath("its events", own, append([]string{
		"listwatch ADD demo/web-2", "fifo pop demo/web-2", "store add demo/web-2",
		"handler add demo/web-2", "handler add demo/web-2",
		"listwatch UPDATE demo/web-2", "fifo pop demo/web-2", "store update demo/web-2",
		"handler update demo/web-2", "handler update demo/web-2",
	}, sortedCopy(deleted)...))
	checkPath("the reconcile it caused", reconcile, []string{
		"queue add demo/tools", "controller reconcile demo/tools",
		"apiclient PATCH demo/tools", "apiclient PATCH demo/tools", // written back, sent and answered: the restart
		"controller reconcile demo/tools",
	})
	checkPath("the story's writes", writes, []string{"PATCH sent", "PATCH answered", "DELETE sent", "DELETE answered"}) // made Running, deleted
	for write, event := range map[string]string{"apiclient PATCH demo/web-2 sent": "listwatch UPDATE demo/web-2", "apiclient DELETE demo/web-2 sent": "listwatch DELETE demo/web-2"} {
		if at[write] > at[event] {
			t.Errorf("%q is hop %d of the path, after %q (%d), the event it caused", write, at[write], event, at[event])
		}
	}
	if q := at["queue add demo/tools"]; q < at["handler update demo/web-2"] || q > at["listwatch DELETE demo/web-2"] {
		t.Errorf("demo/tools was queued at hop %d of the path: not between web-2's update (%d) and its delete (%d)",
			q, at["handler update demo/web-2"], at["listwatch DELETE demo/web-2"])
	}
	if code := stop(); code != 0 {
		t.Errorf("Ctrl-C with the page up: exit %d, want 0", code)
	}
}

// Step mode walks the whole story: the pipeline waits at every hop until the
// page says next, and the page is told each hop with its sentence and file,
// then that the story is told.
func TestDemo_step_mode_walks_the_whole_story_one_hop_at_a_time(t *testing.T) {
	u := uiCommand(t, "demo", "--ui", "127.0.0.1:0", "--step")
	url, stop := u.url, u.stop
	var walked []live.Hop
	events(t, url, func(event, data string) bool {
		if event != "step" {
			return true
		}
		var st live.Step
		if err := json.Unmarshal([]byte(data), &st); err != nil {
			t.Fatal(err)
		}
		switch {
		case st.Done && !st.Paused:
			return false
		case !st.Paused:
			return true // between hops
		case len(walked) > 0 && walked[len(walked)-1].Seq == st.Hop.Seq:
			return true // told again; already stepped past
		}
		walked = append(walked, *st.Hop)
		if st.Hop.What == "" || st.Hop.File == "" {
			t.Errorf("hop %q: no sentence or file for the page", st.Hop.Line)
		}
		req, _ := http.NewRequest("POST", url+"/api/step", nil)
		req.Header.Set("Origin", url) // as the page's fetch sends it: a step needs the page's own origin
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNoContent {
			t.Fatalf("POST /api/step at hop %d %q: %s", st.Hop.Seq, st.Hop.Line, resp.Status)
		}
		return true
	})
	u.wait(t, u.stdout)
	stages := map[string]bool{}
	for i, h := range walked {
		stages[h.Stage] = true
		if h.Seq != uint64(i+1) {
			t.Fatalf("step %d was hop %d: a hop went by without a step", i+1, h.Seq)
		}
	}
	for _, st := range []string{"listwatch", "fifo", "store", "handler", "queue", "controller", "apiclient"} {
		if !stages[st] {
			t.Errorf("no step in stage %s; walked %d hops", st, len(walked))
		}
	}
	if !strings.Contains(u.stdout.String(), "demo: 4/4 ") {
		t.Errorf("the story did not reach its end:\n%s", u.stdout.String())
	}
	t.Logf("walked %d hops", len(walked))
	if code := stop(); code != 0 {
		t.Errorf("Ctrl-C after the story: exit %d, want 0", code)
	}
}

func TestUI_address_in_use_or_missing_is_a_usage_error(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"demo", "--ui", ln.Addr().String()}, "address already in use"},
		{[]string{"demo", "--ui", "nowhere"}, "missing port"},
		{[]string{"demo", "--step"}, "--step pauses for the page: it needs --ui ADDR"},
	} {
		code, _, stderr := run(t, nil, tt.args...)
		if code != 2 || strings.Count(stderr, "\n") > 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and a line saying %q", tt.args, code, stderr, tt.want)
		}
	}
}

// Issue 29: --ui 0.0.0.0:P put a page without a login on the network without a
// word. Any address but loopback is warned about now; loopback is not.
func TestUI_beyond_loopback_is_warned_about(t *testing.T) {
	missing := t.TempDir() + "/no-kubeconfig" // the command fails after opening the page
	for addr, warned := range map[string]bool{"127.0.0.1:0": false, ":0": false, "0.0.0.0:0": true} {
		var stderr strings.Builder
		cli.Main(context.Background(), []string{"sync", "pods", "--ui", addr, "--kubeconfig", missing},
			cli.Env{Stdout: &strings.Builder{}, Stderr: &stderr, Getenv: func(string) string { return "" }})
		if got := strings.Contains(stderr.String(), "ui: warning: "); got != warned || !strings.Contains(stderr.String(), "ui: the pipeline page is at ") {
			t.Errorf("--ui %s: warned %v, want %v:\n%s", addr, got, warned, stderr.String())
		}
	}
}

// Issue 29: an exec plugin that failed printing a refresh token on stderr put
// that text, with the kubeconfig's path, into reflector.lastError on the page.
// The page shows the failure (which user, which field, which plugin) and
// nothing of the credential path.
func TestUI_credential_errors_reach_the_page_without_the_credential_path(t *testing.T) {
	server, _, _ := apiServer(t)
	plugin := filepath.Join(t.TempDir(), "plugin")
	script := "#!/bin/sh\necho 'refresh failed: refresh_token=kw-refresh-s3cr3t' >&2\nexit 1\n"
	if err := os.WriteFile(plugin, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	kc := kubeconfigFile(t, server, "    insecure-skip-tls-verify: true\n",
		"    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: "+plugin+"\n      interactiveMode: Never\n")
	u := uiCommand(t, "run", "-n", "demo", "--ui", "127.0.0.1:0", "--kubeconfig", kc)
	var shown string
	for deadline := time.Now().Add(time.Minute); shown == ""; { // the Reflector's first failure
		var s live.Snapshot
		getJSON(t, u.url+"/api/snapshot", &s)
		for _, inf := range s.Informers {
			shown += inf.Reflector.LastError
		}
		if time.Now().After(deadline) {
			t.Fatal("no error on the page a minute after the plugin began to fail")
		}
	}
	if !strings.Contains(shown, `user "u": exec: plugin`) || !strings.Contains(shown, "failed (exit status 1)") {
		t.Errorf("the page's error %q does not say the user's exec plugin failed", shown)
	}
	for _, leak := range []string{"kw-refresh-s3cr3t", "refresh failed", kc} {
		if strings.Contains(shown, leak) {
			t.Errorf("the page's error %q holds %q", shown, leak)
		}
	}
}

func sortedCopy(s []string) []string {
	c := append([]string{}, s...)
	sort.Strings(c)
	return c
}
