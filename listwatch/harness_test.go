package listwatch_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/apiclient/recording"
	"github.com/kubewire/kubewire/listwatch"
)

// scenario is one replay: a recording played by the test server to a reflector on a
// fake clock, with the lines of what happened.
type scenario struct {
	t      *testing.T
	srv    *apitest.Server
	clock  *clock.Fake
	sink   *modelSink
	r      *listwatch.Reflector
	opts   listwatch.Options
	client *apiclient.Client

	// onStepHook, when set before run, sees every step after it was recorded.
	onStepHook func(listwatch.Step)

	mu      sync.Mutex
	lines   []string
	idle    time.Duration // the current watch's idle timeout
	events  int           // event steps since the last WATCH
	stallAt int           // when ≥ 0: a stall began after this many events

	bookmarks []string                     // what the sink was told by Bookmark, outside the golden lines
	held      map[string]*apiclient.Object // what Held handed back, by key
}

// newScenario sets up a replay of rec. opts may set anything but Clock, Rand,
// OnStep and Logger, which the scenario owns.
func newScenario(t *testing.T, rec *recording.Recording, opts listwatch.Options) *scenario {
	t.Helper()
	return newScenarioWith(t, rec, apiclient.Options{}, opts)
}

// newScenarioWith is newScenario with client options (but Clock, which is the
// scenario's).
func newScenarioWith(t *testing.T, rec *recording.Recording, copts apiclient.Options, opts listwatch.Options) *scenario {
	t.Helper()
	sc := &scenario{t: t, clock: clock.NewFake(), stallAt: -1}
	sc.srv = apitest.NewServer(sc.clock)
	t.Cleanup(sc.srv.Close)
	sc.srv.Replay(rec)
	sc.srv.OnReply = sc.onReply
	copts.Clock = sc.clock
	c, err := sc.srv.Client(copts)
	if err != nil {
		t.Fatal(err)
	}
	sc.client = c
	sc.sink = newModelSink(&sc.lines)
	opts.Clock, opts.Rand, opts.OnStep, opts.Logger = sc.clock, rand.New(rand.NewPCG(1, 2)), sc.onStep, discard
	if opts.IdleMargin == 0 {
		opts.IdleMargin = 30 * time.Second
	}
	if opts.ServerVersion == nil && asksVersion(rec) {
		opts.ServerVersion = c.ServerVersion // as an informer's Reflector is given it
	}
	sc.opts = opts
	sc.r = listwatch.New(c.Resource(apiclient.Pods).Namespace(namespaceOf(rec)), sc.sinkLocked(), opts)
	return sc
}

// sinkLocked wraps the sink so that its golden lines are written under the
// scenario's lock (Replace runs on the reflector's goroutine, as steps do).
func (sc *scenario) sinkLocked() listwatch.Sink { return lockedSink{sc} }

type lockedSink struct{ sc *scenario }

func (l lockedSink) Add(o *apiclient.Object) error    { return l.sc.sink.Add(o) }
func (l lockedSink) Update(o *apiclient.Object) error { return l.sc.sink.Update(o) }
func (l lockedSink) Delete(o *apiclient.Object) error { return l.sc.sink.Delete(o) }
func (l lockedSink) Bookmark(rv string) error {
	l.sc.mu.Lock()
	defer l.sc.mu.Unlock()
	l.sc.bookmarks = append(l.sc.bookmarks, rv)
	return nil
}

// Held hands back what the model holds unchanged, as the informer does.
func (l lockedSink) Held(obj *apiclient.Object) (*apiclient.Object, bool) {
	key, rv := obj.Key(), obj.Metadata.ResourceVersion
	l.sc.mu.Lock()
	defer l.sc.mu.Unlock()
	l.sc.sink.mu.Lock()
	defer l.sc.sink.mu.Unlock()
	o, ok := l.sc.sink.objects[key]
	if !ok || o.Metadata.ResourceVersion != rv {
		return nil, false
	}
	if l.sc.held == nil {
		l.sc.held = map[string]*apiclient.Object{}
	}
	l.sc.held[key] = o
	return o, true
}
func (l lockedSink) Replace(list []*apiclient.Object, rv string) error {
	l.sc.mu.Lock()
	defer l.sc.mu.Unlock()
	return l.sc.sink.Replace(list, rv)
}

// run plays the scenario to its end — the reflector asks for more than the script
// holds — and returns the lines: the steps, the deletions the sink saw, and the
// sink's final content.
func (sc *scenario) run() []string {
	sc.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- sc.r.Run(ctx) }()
	select {
	case <-sc.srv.Done():
	case err := <-done:
		sc.t.Fatalf("Run returned early: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		sc.t.Fatal(err)
	}
	if err := sc.srv.Err(); err != nil {
		sc.t.Fatal(err)
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	lines := append([]string(nil), sc.lines...)
	lines = append(lines, "-- the sink holds:")
	for _, s := range sc.sink.state() {
		lines = append(lines, "   "+s)
	}
	return lines
}

// onStep writes the step's line and moves the fake clock when the reflector waits
// for it: a backoff at once (its timer is armed before the step is reported), an
// idle timeout once the reflector has applied everything a stalled watch sent.
func (sc *scenario) onStep(s listwatch.Step) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	// A failure to reach the server names its URL, whose port changes from run
	// to run.
	sc.lines = append(sc.lines, strings.ReplaceAll(s.String(), sc.srv.URL, "https://apiserver"))
	switch s.Op {
	case listwatch.OpBackoff:
		sc.clock.Step(s.Wait)
	case listwatch.OpWatch:
		sc.idle, sc.events, sc.stallAt = s.Timeout+sc.opts.IdleMargin, 0, -1
	case listwatch.OpIdle:
		if err := sc.r.Health().LastError; !errors.Is(err, listwatch.ErrWatchIdle) {
			sc.t.Errorf("after IDLE, Health().LastError is %v, want ErrWatchIdle", err)
		}
	case listwatch.OpItem, listwatch.OpAdd, listwatch.OpUpdate, listwatch.OpDelete, listwatch.OpBookmark, listwatch.OpSkip:
		sc.events++
	case listwatch.OpError:
		if s.Next == "go on" {
			sc.events++
		}
	}
	sc.maybeIdle()
	if sc.onStepHook != nil {
		sc.onStepHook(s)
	}
}

// onReply is the server's side: a stall waits for the reflector to catch up, a
// Retry-After for the client to start its wait.
func (sc *scenario) onReply(rep apitest.Reply) {
	if rep.Exchange.RetryAfter > 0 {
		d := time.Duration(rep.Exchange.RetryAfter) * time.Second
		// The client retries this one on its own, so no step shows it; the line is
		// written before the clock moves, and the client can do nothing until it
		// does, so its place among the steps is fixed.
		sc.mu.Lock()
		sc.lines = append(sc.lines, fmt.Sprintf("(server: %d, Retry-After: %s; the client waits and retries)", rep.Exchange.Status, d))
		sc.mu.Unlock()
		go func() {
			sc.clock.BlockUntilDue(d)
			sc.clock.Step(d)
		}()
	}
	if lasted(rep.Exchange) {
		// The response's end is sent once this returns: the watch has lasted
		// a second by the time the reflector reads it.
		sc.clock.Step(time.Second)
	}
	if rep.Exchange.End == recording.Stall {
		sc.mu.Lock()
		defer sc.mu.Unlock()
		sc.stallAt = len(rep.Exchange.Lines)
		sc.maybeIdle()
	}
}

// lasted says whether a scripted response is a watch the server ended normally
// after it had lasted: in a recording that is its timeoutSeconds passing
// (recording.Finished). A second is as long as the reflector cares about: a watch
// ended sooner backs off (errClosedAtOnce). A script says "< end # at once" for
// a watch ended as soon as it was asked for.
//
// Not a streaming list's (a second is its initial events' whole allowance of
// silence, initialEventsIdle, and one that listed is never "at once"), and not
// a watch that sent an ERROR event: the reflector acts on the event, not on the
// end, and the second would fall on the requests after it.
func lasted(ex *recording.Exchange) bool {
	if ex.End != recording.Finished || !strings.Contains(ex.Target, "watch=true") || strings.Contains(ex.EndNote, "at once") ||
		strings.Contains(ex.Target, "sendInitialEvents=true") {
		return false
	}
	for _, l := range ex.Lines {
		if bytes.Contains(l, []byte(`"type":"ERROR"`)) {
			return false
		}
	}
	return true
}

// maybeIdle steps the clock past the idle timeout when a stall is on and the
// reflector has applied every event sent before it; called with mu held.
func (sc *scenario) maybeIdle() {
	if sc.stallAt >= 0 && sc.events >= sc.stallAt {
		sc.stallAt = -1
		sc.clock.Step(sc.idle)
	}
}
