package controller_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/controller"
)

// farAhead is the resourceVersion aheadAnswers answers a write with: one no
// watch of the test's server ever reaches.
const farAhead = "999999999"

// aheadAnswers is a proxy that, while on, rewrites the resourceVersion of each
// accepted create's answer to farAhead: the write is made (the server stores
// and watches it at its real version), but the writer is told a version the
// watch never reaches, as a broken server or a proxy rewriting versions would.
type aheadAnswers struct {
	next http.RoundTripper
	on   atomic.Bool
}

func (a *aheadAnswers) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := a.next.RoundTrip(req)
	if err != nil || req.Method != http.MethodPost || !a.on.Load() || resp.StatusCode/100 != 2 {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	var obj map[string]any
	if err := json.Unmarshal(body, &obj); err != nil {
		return nil, err
	}
	if meta, ok := obj["metadata"].(map[string]any); ok {
		meta["resourceVersion"] = farAhead
	}
	if body, err = json.Marshal(obj); err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	return resp, nil
}

// aheadRun is a Manager on an API server in memory, with a fake clock, whose
// client goes through aheadAnswers; other is a client of another writer (its
// writes are not the Manager's own).
type aheadRun struct {
	srv   *apitest.Server
	clock *clock.Fake
	ahead *aheadAnswers
	m     *controller.Manager
	other *apiclient.Client

	mu  sync.Mutex
	log bytes.Buffer
}

func newAheadRun(t *testing.T, build func(*controller.Manager)) *aheadRun {
	t.Helper()
	r := &aheadRun{srv: apitest.NewServer(nil), clock: clock.NewFake()}
	r.srv.CreateNamespaces("demo")
	t.Cleanup(r.srv.Close)
	r.ahead = &aheadAnswers{next: r.srv.Transport()}
	client, err := r.srv.Client(apiclient.Options{Transport: r.ahead, Clock: r.clock})
	must(t, err)
	r.other, err = r.srv.Client(apiclient.Options{})
	must(t, err)
	log := slog.New(slog.NewTextHandler(lockedWriter{&r.mu, &r.log}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	r.m, err = controller.NewManager(client, controller.ManagerOptions{Namespace: "demo", Log: log, Clock: r.clock})
	must(t, err)
	if build != nil {
		build(r.m)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.m.Run(ctx) }() // owned by the test: stopped at cleanup
	t.Cleanup(func() { cancel(); <-done })
	return r
}

// logged is the WARN lines so far.
func (r *aheadRun) logged() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.log.String()
}

// createAhead creates the pod name through the Manager's client, answered at
// farAhead.
func (r *aheadRun) createAhead(t *testing.T, name string) {
	t.Helper()
	r.ahead.on.Store(true)
	defer r.ahead.on.Store(false)
	o, err := r.m.Client().Resource(apiclient.Pods).Namespace("demo").Create(context.Background(), []byte(`{"metadata":{"name":"`+name+`"}}`), apiclient.WriteOptions{})
	must(t, err)
	if o.Metadata.ResourceVersion != farAhead {
		t.Fatalf("created %s answered at %q, want %s", name, o.Metadata.ResourceVersion, farAhead)
	}
}

// One answer ahead of the watch must not poison read-your-own-writes for the
// life of the process: the write stops being waited for once the watch shows
// its object superseded (here, deleted by another writer), or, never shown,
// StaleWaitLimit after its answer — then it is counted, logged once, and never
// waited for again. While it is awaited, /readyz's detail says so.
func TestManager_WaitForOwnWrites_an_answer_the_watch_never_reaches(t *testing.T) {
	r := newAheadRun(t, func(m *controller.Manager) { m.Informer(apiclient.Pods) })
	pods := r.m.Informer(apiclient.Pods)
	within, stop := context.WithTimeout(context.Background(), time.Minute)
	defer stop()
	if !pods.WaitForCacheSync(within) {
		t.Fatal("not synced")
	}
	gaveUp, giveUp := context.WithCancelCause(context.Background())
	giveUp(errors.New("not waiting"))
	mine := r.m.Client().Resource(apiclient.Pods).Namespace("demo")
	cached := func(name string) func() bool {
		return func() bool { _, err := pods.Get("demo", name); return err == nil }
	}

	// Superseded: a, answered ahead, is shown at its real version, which is
	// not the answer's; the cache cannot be said to show the write until the
	// object moves on.
	r.createAhead(t, "a")
	waitUntil(t, "a cached", cached("a"))
	if err := pods.WaitForOwnWrites(gaveUp); err == nil || !strings.Contains(err.Error(), "rv "+farAhead) {
		t.Fatalf("a answered at %s, the cache behind it: %v", farAhead, err)
	}
	_, err := mine.Create(context.Background(), []byte(`{"metadata":{"name":"b"}}`), apiclient.WriteOptions{})
	must(t, err)
	waitUntil(t, "b cached", cached("b"))
	if err := pods.WaitForOwnWrites(gaveUp); err == nil {
		t.Fatal("a not superseded yet: the wait must go on")
	}
	must(t, r.other.Resource(apiclient.Pods).Namespace("demo").Delete(context.Background(), "a", apiclient.DeleteOptions{}))
	waitUntil(t, "a gone from the cache", func() bool { return !cached("a")() })
	if err := pods.WaitForOwnWrites(gaveUp); err != nil {
		t.Fatalf("a deleted since: its write is superseded, and b is shown: %v", err)
	}

	// Never shown: c is awaited, and /readyz says so, until StaleWaitLimit
	// after its answer; a reader waiting meanwhile is let go then.
	r.createAhead(t, "c")
	waitUntil(t, "c cached", cached("c"))
	r.clock.Step(controller.StaleWaitLimit / 2)
	detail, err := r.m.Ready()
	must(t, err)
	if want := fmt.Sprintf(`awaiting this process's write of pods "demo/c" at rv %q for 30s`, farAhead); !strings.Contains(detail, want) {
		t.Errorf("/readyz detail %q, want it to say %s", detail, want)
	}
	if err := pods.WaitForOwnWrites(gaveUp); err == nil {
		t.Fatal("c not shown, not given up on: the wait must go on")
	}
	timers := r.clock.Waiters()
	waiting := make(chan error, 1)
	go func() { waiting <- pods.WaitForOwnWrites(within) }()
	waitUntil(t, "the reader waiting, until the time c is given up on", func() bool { return r.clock.Waiters() > timers })
	r.clock.Step(controller.StaleWaitLimit / 2) // the store does not move: the reader's timer lets it go
	if err := <-waiting; err != nil {
		t.Fatalf("a reader waiting when c was given up on: %v", err)
	}
	must(t, pods.WaitForOwnWrites(gaveUp))
	if detail, _ := r.m.Ready(); strings.Contains(detail, "awaiting") {
		t.Errorf("/readyz detail %q after c was given up on", detail)
	}
	page := scrape(t, r.m.Registry())
	if want := `kubewire_own_writes_abandoned_total{controller="",resource="pods"} 1`; !strings.Contains(page, want) {
		t.Errorf("/metrics has no %s:\n%s", want, grep(page, "own_writes"))
	}

	// Later writes are waited for as ever, and c never again.
	release := r.srv.HoldWatch(apiclient.Pods)
	_, err = mine.Create(context.Background(), []byte(`{"metadata":{"name":"d"}}`), apiclient.WriteOptions{})
	must(t, err)
	if err := pods.WaitForOwnWrites(gaveUp); err == nil || strings.Contains(err.Error(), farAhead) {
		t.Fatalf("d not shown yet: %v", err)
	}
	release()
	must(t, pods.WaitForOwnWrites(within))
	if log := r.logged(); strings.Count(log, "never showed") != 1 || !strings.Contains(log, `object=demo/c`) || !strings.Contains(log, `wrote="rv `+farAhead+`"`) {
		t.Errorf("want one WARN naming demo/c and rv %s:\n%s", farAhead, log)
	}
}

// The staleness guard, on the same answer: the turn it holds back runs once
// the object written is deleted by another writer, without waiting out the
// bound.
func TestStaleGuard_an_answer_ahead_of_the_watch_is_superseded_by_a_delete(t *testing.T) {
	var ctrl *controller.Controller
	r := newAheadRun(t, func(m *controller.Manager) {
		var err error
		ctrl, err = newReplicas(m, controller.Options{})
		must(t, err)
	})
	r.ahead.on.Store(true) // the child's create is answered ahead
	addParent(r.srv, 1)
	pods := r.m.Informer(apiclient.Pods)
	waitUntil(t, "the child cached, its turn skipped", func() bool { return pods.Len() == 1 && ctrl.Stats().StaleSkips > 0 })
	r.ahead.on.Store(false)
	// The skipped turn again, after the child was cached: the guard sees it
	// there. (Its retry is at most a second away.)
	skips := ctrl.Stats().StaleSkips
	waitUntil(t, "a retry armed", func() bool { return r.clock.Timers() > 0 })
	r.clock.Step(time.Second)
	waitUntil(t, "the turn skipped again", func() bool { return ctrl.Stats().StaleSkips > skips })
	child := pods.List()[0]
	must(t, r.other.Resource(apiclient.Pods).Namespace("demo").Delete(context.Background(), child.Metadata.Name, apiclient.DeleteOptions{}))
	waitUntil(t, "the second turn, the child deleted", func() bool { return ctrl.Stats().Reconciles >= 2 })
}

// Never shown, the guard gives the write up StaleWaitLimit after its answer:
// the turn runs, the write is counted for its controller and logged once, and
// later turns of the Request are not held back by it again.
func TestStaleGuard_an_answer_ahead_of_the_watch_is_given_up_once(t *testing.T) {
	var ctrl *controller.Controller
	r := newAheadRun(t, func(m *controller.Manager) {
		var err error
		ctrl, err = newReplicas(m, controller.Options{})
		must(t, err)
	})
	r.ahead.on.Store(true)
	addParent(r.srv, 1)
	waitUntil(t, "a turn skipped", func() bool { return ctrl.Stats().StaleSkips > 0 })
	r.ahead.on.Store(false)
	for ctrl.Stats().Reconciles < 2 {
		skips := ctrl.Stats().StaleSkips
		waitUntil(t, "a retry armed", func() bool { return r.clock.Timers() > 0 || ctrl.Stats().Reconciles >= 2 })
		r.clock.Step(controller.StaleWaitLimit / 60)
		waitUntil(t, "the retry", func() bool { return ctrl.Stats().StaleSkips > skips || ctrl.Stats().Reconciles >= 2 })
	}
	page := scrape(t, r.m.Registry())
	if want := `kubewire_own_writes_abandoned_total{controller="replicas",resource="pods"} 1`; !strings.Contains(page, want) {
		t.Errorf("/metrics has no %s:\n%s", want, grep(page, "own_writes"))
	}
	// Another writer's change to the parent brings it back: its turn runs at
	// once, the given-up write not awaited again.
	skips, turns := ctrl.Stats().StaleSkips, ctrl.Stats().Reconciles
	_, err := r.other.Resource(apiclient.ConfigMaps).Namespace("demo").Patch(context.Background(), "web", apiclient.MergePatch, []byte(`{"data":{"more":"x"}}`), apiclient.WriteOptions{})
	must(t, err)
	waitUntil(t, "the turn of the parent's change", func() bool { return ctrl.Stats().Reconciles > turns })
	if got := ctrl.Stats().StaleSkips; got != skips {
		t.Errorf("%d more turns skipped after the write was given up on", got-skips)
	}
	if log := r.logged(); strings.Count(log, "never showed") != 1 || !strings.Contains(log, "controller=replicas") {
		t.Errorf("want one WARN naming the controller:\n%s", log)
	}
}
