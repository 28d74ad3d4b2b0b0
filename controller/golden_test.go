package controller_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/apitest/golden"
	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/informer"
)

// story is a reconcile log: the test's own steps ("# …") and one line per
// Reconcile call, in order. It is compared with testdata/NAME.golden.
type story struct {
	mu    sync.Mutex
	lines []string
	calls chan string
}

func (s *story) say(format string, args ...any) {
	s.mu.Lock()
	s.lines = append(s.lines, fmt.Sprintf(format, args...))
	s.mu.Unlock()
}

// expect waits for the next Reconcile line and logs it.
func (s *story) expect(t *testing.T) string {
	t.Helper()
	line := <-s.calls
	s.say("%s", line)
	return line
}

// expectGone waits for key's Reconciles after its delete, until one finds it
// gone from the cache and the controller's queue has nothing left, and logs
// that line once. A Pod's delete is two writes on kube-apiserver (and on
// apitest): the Pod marked with a deletionTimestamp, then removed. Whether
// the queue folds the two events into one Reconcile, and whether the first
// Reconcile still finds the marked Pod, depend on how soon the worker takes
// the key: the story tells what must hold, that key is reconciled gone.
func (s *story) expectGone(t *testing.T, key string, ctrl *controller.Controller) {
	t.Helper()
	gone := key + ": gone from the cache"
	for line := <-s.calls; ; line = <-s.calls {
		if !strings.Contains(line, key+": ") {
			t.Fatalf("waiting for %s to be gone, got %q", key, line)
		}
		if strings.Contains(line, gone) {
			s.say("%s", line)
			break
		}
	}
	waitUntil(t, "the queue to be idle", func() bool {
		m := ctrl.Queue().Metrics()
		return m.Depth == 0 && m.Processing == 0
	})
	for {
		select {
		case line := <-s.calls:
			if !strings.Contains(line, gone) {
				t.Fatalf("after %s was gone: %q", key, line)
			}
		default:
			return
		}
	}
}

func (s *story) check(t *testing.T, name string) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name+".golden"), strings.Join(s.lines, "\n")+"\n")
}

// cacheReconciler reads the object from the cache, as a level-based reconciler
// does, and logs what it found. Scripted requests fail or ask to be requeued.
type cacheReconciler struct {
	inf   *informer.Informer
	story *story
	fail  map[string]int // request → failures still to give
	again map[string]bool
	mu    sync.Mutex
}

func (r *cacheReconciler) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	obj, err := r.inf.Get(req.Namespace, req.Name)
	state := "gone from the cache"
	if err == nil {
		state = "in the cache at rv=" + obj.Metadata.ResourceVersion
	}
	if r.fail[req.String()] > 0 {
		r.fail[req.String()]--
		r.story.calls <- fmt.Sprintf("reconcile %s: %s → error", req, state)
		return controller.Result{}, errors.New("simulated failure")
	}
	if r.again[req.String()] {
		delete(r.again, req.String())
		r.story.calls <- fmt.Sprintf("reconcile %s: %s → requeue after 1m", req, state)
		return controller.Result{RequeueAfter: 60e9}, nil
	}
	r.story.calls <- fmt.Sprintf("reconcile %s: %s → ok", req, state)
	return controller.Result{}, nil
}

// pipeline is the whole pipeline on an in-memory API server: the listwatch
// Reflector lists and watches it, the informer caches, the controller reconciles,
// one worker. The controller's Options get the process clock and a quiet log.
type pipeline struct {
	clock *clock.Fake // the process's: informers' resyncs and the controller's queue
	pods  apiclient.ResourceClient
	story *story
	ctrl  *controller.Controller
	stop  func() error // stops the manager and returns what Run returned
}

func newGolden(t *testing.T, pods []string, rec *cacheReconciler, opts controller.Options) *pipeline {
	t.Helper()
	srv := apitest.NewServer(clock.NewFake()) // another process: a clock of its own
	t.Cleanup(srv.Close)
	for _, p := range pods {
		if _, err := srv.Add(apiclient.Pods, fmt.Sprintf(`{"metadata":{"name":%q,"namespace":"default"}}`, p)); err != nil {
			t.Fatal(err)
		}
	}
	c, err := srv.Client(apiclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := &pipeline{clock: clock.NewFake(), pods: c.Resource(apiclient.Pods).Namespace("default"), story: &story{calls: make(chan string, 10)}}
	m, err := controller.NewManager(c, controller.ManagerOptions{Namespace: "default", Log: quiet, Clock: g.clock})
	if err != nil {
		t.Fatal(err)
	}
	rec.inf, rec.story = m.Informer(apiclient.Pods), g.story
	g.ctrl, err = controller.New(m, "pods", opts).For(apiclient.Pods).Complete(rec)
	must(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	var once sync.Once
	var runErr error
	g.stop = func() error {
		once.Do(func() { cancel(); runErr = <-done })
		return runErr
	}
	t.Cleanup(func() { _ = g.stop() })
	return g
}

func TestGolden_reconcile_log(t *testing.T) {
	rec := &cacheReconciler{fail: map[string]int{"default/f": 3}, again: map[string]bool{"default/r": true}}
	g := newGolden(t, []string{"a", "b"}, rec, controller.Options{MaxRetries: 2, ResyncPeriod: 10 * time.Minute})
	s, pclock, pc, ctrl, ctx := g.story, g.clock, g.pods, g.ctrl, context.Background()

	s.say("# initial list: a and b")
	got := map[string]bool{s.expect(t): true, s.expect(t): true}
	if len(got) != 2 {
		t.Fatalf("initial reconciles %v", got)
	}
	s.say("# update a")
	if _, err := pc.Patch(ctx, "a", apiclient.MergePatch, []byte(`{"metadata":{"labels":{"x":"y"}}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	s.expect(t)
	s.say("# delete b")
	if err := pc.Delete(ctx, "b", apiclient.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	s.expectGone(t, "default/b", ctrl)
	s.say("# create f, whose reconcile fails 3 times; MaxRetries is set to 2 (the default has no limit)")
	if _, err := pc.Create(ctx, []byte(`{"metadata":{"name":"f"}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	s.expect(t)
	for _, backoff := range []string{"5ms", "10ms"} {
		waitForTimer(t, pclock)
		s.say("# backoff %s passes", backoff)
		pclock.Step(mustDuration(backoff))
		s.expect(t)
	}
	// The loop counts the drop after Reconcile has returned: wait until it has.
	waitUntil(t, "the drop counted", func() bool { return ctrl.Stats().Dropped > 0 })
	s.say("# dropped: %d; a new change of f starts afresh", ctrl.Stats().Dropped)
	if _, err := pc.Patch(ctx, "f", apiclient.MergePatch, []byte(`{"metadata":{"labels":{"x":"y"}}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	s.expect(t)
	s.say("# create r, whose reconcile asks to be requeued after a minute")
	if _, err := pc.Create(ctx, []byte(`{"metadata":{"name":"r"}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	s.expect(t)
	waitForTimer(t, pclock)
	s.say("# a minute passes")
	pclock.Step(60e9)
	s.expect(t)
	s.say("# the resync period (10m) passes: every cached pod is reconciled, changed or not")
	pclock.BlockUntilWaiters(1)
	pclock.Step(10 * time.Minute)
	lines := []string{<-s.calls, <-s.calls, <-s.calls}
	sort.Strings(lines) // the resync's order is the store's, a map's
	for _, l := range lines {
		s.say("%s", l)
	}
	if err := g.stop(); err != nil {
		t.Fatal(err)
	}
	s.check(t, "reconcile_log")
}

// With the default Options there is no retry limit: a Request that fails 20
// times in a row is retried each time, its backoff doubling from 5 ms up to
// DefaultMaxBackoff, and succeeds at the 21st try.
func TestGolden_failing_request_is_retried_until_it_succeeds(t *testing.T) {
	g := newGolden(t, nil, &cacheReconciler{fail: map[string]int{"default/f": 20}}, controller.Options{})
	s := g.story
	s.say("# create f, whose reconcile fails 20 times; default Options: no retry limit")
	if _, err := g.pods.Create(context.Background(), []byte(`{"metadata":{"name":"f"}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	s.expect(t)
	var total time.Duration
	for n := 1; n <= 20; n++ {
		waitForTimer(t, g.clock)
		backoff := min(5*time.Millisecond<<(n-1), controller.DefaultMaxBackoff)
		total += backoff
		s.say("# backoff %s passes (failure %d)", backoff, n)
		g.clock.Step(backoff)
		s.expect(t)
	}
	if err := g.stop(); err != nil {
		t.Fatal(err)
	}
	s.say("# retried for %s in all; dropped: %d", total.Round(time.Second), g.ctrl.Stats().Dropped)
	s.check(t, "retry_without_limit")
}

// A delete the watch never delivered: the relist no longer lists b, the informer
// makes up the delete, and the reconciler finds b gone.
func TestGolden_delete_seen_only_through_a_relist(t *testing.T) {
	m := newTestManager(t, controller.ManagerOptions{})
	s := &story{calls: make(chan string, 10)}
	pods := m.Informer(apiclient.Pods)
	// The delete handler runs on a goroutine of its own, which the
	// controller's reconcile of b does not wait for: the story waits for it.
	deletes := make(chan string, 10)
	pods.AddHandler("deletes", informer.HandlerFuncs{DeleteFunc: func(o *apiclient.Object, unknown bool) {
		deletes <- fmt.Sprintf("%s finalStateUnknown=%v", o.Key(), unknown)
	}}, 0)
	_, err := controller.New(m.Manager, "pods", controller.Options{}).For(apiclient.Pods).Complete(&cacheReconciler{inf: pods, story: s})
	must(t, err)
	m.start(t)
	sink := m.scripts.of(t, "pods").Sink
	s.say("# LIST: a, b")
	must(t, sink.Replace([]*apiclient.Object{pod("a", "1"), pod("b", "2")}, "2"))
	got := map[string]bool{s.expect(t): true, s.expect(t): true}
	if len(got) != 2 {
		t.Fatal(got)
	}
	s.say("# the watch breaks; b is deleted meanwhile; the relist (410) lists a only")
	must(t, sink.Replace([]*apiclient.Object{pod("a", "1")}, "9"))
	s.expect(t)
	saw := []string{<-deletes}
	must(t, m.stop())
	for len(deletes) > 0 {
		saw = append(saw, <-deletes) // a second delete would be a bug the golden shows
	}
	s.say("# the delete handler saw: %s", strings.Join(saw, ", "))
	s.check(t, "relist_tombstone")
}
