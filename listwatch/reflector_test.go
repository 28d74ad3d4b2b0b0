package listwatch_test

import (
	"context"
	"errors"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/listwatch"
)

func TestRun_refuses_a_nil_sink_and_a_second_call(t *testing.T) {
	srv := apitest.NewServer(nil)
	srv.CreateNamespaces("demo")
	defer srv.Close()
	c, err := srv.Client(apiclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rc := c.Resource(apiclient.Pods)
	if err := listwatch.New(rc, nil, listwatch.Options{Logger: discard}).Run(context.Background()); err == nil {
		t.Fatal("Run with a nil Sink returned nil")
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := listwatch.New(rc, newModelSink(nil), listwatch.Options{Logger: discard})
	results := make(chan error, 2)
	go func() { results <- r.Run(ctx) }()
	go func() { results <- r.Run(ctx) }()
	// One call refuses at once; the other runs until ctx is done.
	if err := <-results; err == nil {
		t.Fatal("a second Run did not refuse")
	}
	cancel()
	if err := <-results; err != nil {
		t.Fatalf("the running Run returned %v", err)
	}
}

// TestHealth_tells_what_happened replays the tour script while another goroutine
// reads Health at every step (the race detector checks the locking), then checks
// the counters.
func TestHealth_tells_what_happened(t *testing.T) {
	sc := newScenario(t, tourScript(t), listwatch.Options{})
	reads := make(chan listwatch.Health, 1000)
	done := make(chan struct{})
	defer close(done)
	tick := make(chan struct{}, 1000)
	go func() {
		for {
			select {
			case <-tick:
				reads <- sc.r.Health()
			case <-done:
				return
			}
		}
	}()
	sc.onStepHook = func(listwatch.Step) { tick <- struct{}{} }
	if sc.r.HasSynced() {
		t.Fatal("synced before Run")
	}
	sc.run()
	h := sc.r.Health()
	if got, want := h.State, listwatch.Stopped; got != want {
		t.Fatalf("state %v, want %v", got, want)
	}
	if !h.Synced || !sc.r.HasSynced() {
		t.Fatal("not synced after a list")
	}
	if got, want := h.ResourceVersion, "30"; got != want || sc.r.LastSyncResourceVersion() != want {
		t.Fatalf("resourceVersion %q, want %q", got, want)
	}
	if got, want := h.Relists, 1; got != want {
		t.Fatalf("relists %d, want %d", got, want)
	}
	// Watches from rv 12 (after the normal end), 13 twice (after the malformed line
	// and the 500) and 14 (after the idle drop): four restarts without a LIST.
	if got, want := h.WatchRestarts, 4; got != want {
		t.Fatalf("watch restarts %d, want %d", got, want)
	}
	if !apiclient.IsGone(h.LastError) || h.LastErrorAt.IsZero() {
		t.Fatalf("last error %v at %v, want the 410", h.LastError, h.LastErrorAt)
	}
	if h.LastEventAt.IsZero() {
		t.Fatal("no time for the last event")
	}
	if len(reads) == 0 {
		t.Fatal("Health was never read during the run")
	}
}

// TestSink_errors: a failed Add is logged and the watch goes on; a failed Replace
// backs off and lists again.
func TestSink_errors(t *testing.T) {
	t.Run("a failed Add skips the event", func(t *testing.T) {
		sc := newScenario(t, script(t,
			list0, ok, podList("10"),
			watch10, ok, ev("ADDED", "a", "11"), ev("ADDED", "b", "12"), "< end",
		), listwatch.Options{})
		sc.sink.fail["Add"] = errors.New("full")
		goldenLines(t, "sink-add-fails", sc.run())
	})
	t.Run("a failed Replace lists again", func(t *testing.T) {
		sc := newScenario(t, script(t,
			list0, ok, podList("10", podJSON("a", "5")),
			list0, ok, podList("11", podJSON("a", "5")),
			"> GET /api/v1/namespaces/demo/pods?allowWatchBookmarks=true&resourceVersion=11&watch=true", ok, ev("ADDED", "b", "12"), "< end",
		), listwatch.Options{})
		sc.sink.failOnce("Replace", errors.New("not now"))
		goldenLines(t, "sink-replace-fails", sc.run())
	})
}

// TestList_of_a_resource_that_does_not_exist_yet_waits_for_it: a 404 on the LIST (a
// custom resource whose CRD is not installed yet) leaves the sink untouched and the
// reflector unsynced; it keeps trying, and the first list that succeeds is the
// first Replace.
func TestList_of_a_resource_that_does_not_exist_yet_waits_for_it(t *testing.T) {
	sc := newScenario(t, script(t,
		list0, "< 404", status(404, "NotFound", "the server could not find the requested resource"),
		list0, ok, podList("10", podJSON("a", "5")),
	), listwatch.Options{})
	sc.run()
	if got, want := sc.sink.replaceCount(), 1; got != want || !sc.r.HasSynced() {
		t.Fatalf("%d Replace calls, synced %v; want %d, true (none for the 404, one for the list)", got, sc.r.HasSynced(), want)
	}
}
