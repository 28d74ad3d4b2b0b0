package controller_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/informer"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

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

func (s *story) check(t *testing.T, name string) {
	t.Helper()
	got := strings.Join(s.lines, "\n") + "\n"
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if got != string(want) {
		t.Fatalf("reconcile log differs from %s:\n%s\nwant:\n%s", path, got, want)
	}
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
	obj, ok := r.inf.Get(req.Namespace, req.Name)
	state := "gone from the cache"
	if ok {
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

// The whole pipeline on an in-memory API server: the listwatch Reflector lists and
// watches it, the informer caches, the controller reconciles, one worker.
func TestGolden_reconcile_log(t *testing.T) {
	clock := apitest.NewClock()
	srv := apitest.NewServer(clock)
	defer srv.Close()
	for _, p := range []string{"a", "b"} {
		if _, err := srv.Add(apiclient.Pods, fmt.Sprintf(`{"metadata":{"name":%q,"namespace":"default"}}`, p)); err != nil {
			t.Fatal(err)
		}
	}
	c, err := srv.Client(apiclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// One clock for the process: the informers' resyncs and the controller's queue.
	// (The server has its own: it is another process.)
	pclock := apitest.NewClock()
	m, err := controller.NewManager(c, controller.ManagerOptions{Log: quiet, Clock: pclock})
	if err != nil {
		t.Fatal(err)
	}
	s := &story{calls: make(chan string, 10)}
	pods := m.Informer(apiclient.Pods, informer.Options{Namespace: "default"})
	rec := &cacheReconciler{inf: pods, story: s, fail: map[string]int{"default/f": 3}, again: map[string]bool{"default/r": true}}
	ctrl := controller.New("pods", rec, controller.Options{Log: quiet, MaxRetries: 2, Clock: pclock, ResyncPeriod: 10 * time.Minute})
	ctrl.Watch(pods, nil)
	m.Add(ctrl)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	pc := c.Resource(apiclient.Pods).Namespace("default")

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
	s.expect(t)
	s.say("# create f, whose reconcile fails 3 times; MaxRetries is 2")
	if _, err := pc.Create(ctx, []byte(`{"metadata":{"name":"f"}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	s.expect(t)
	for _, backoff := range []string{"5ms", "10ms"} {
		waitForTimer(pclock)
		s.say("# backoff %s passes", backoff)
		pclock.Step(mustDuration(backoff))
		s.expect(t)
	}
	// The loop counts the drop after Reconcile has returned: wait until it has.
	for ctrl.Stats().Dropped == 0 {
		yield()
	}
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
	waitForTimer(pclock)
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
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	s.check(t, "reconcile_log")
}

// A delete the watch never delivered: the relist no longer lists b, the informer
// makes up the delete, and the reconciler finds b gone.
func TestGolden_delete_seen_only_through_a_relist(t *testing.T) {
	src := scripts{}
	leases := apitest.NewServer(apitest.NewClock())
	defer leases.Close()
	c, _ := leases.Client(apiclient.Options{})
	m, err := controller.NewManager(c, controller.ManagerOptions{Source: src.source, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	s := &story{calls: make(chan string, 10)}
	pods := m.Informer(apiclient.Pods, informer.Options{Namespace: "default"})
	var deletes []string
	pods.AddHandler("deletes", informer.HandlerFuncs{DeleteFunc: func(o *apiclient.Object, unknown bool) {
		deletes = append(deletes, fmt.Sprintf("%s finalStateUnknown=%v", o.Key(), unknown))
	}}, 0)
	ctrl := controller.New("pods", &cacheReconciler{inf: pods, story: s}, controller.Options{Log: quiet})
	ctrl.Watch(pods, nil)
	m.Add(ctrl)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	sink := waitScript(src, controller.InformerKey{Resource: "pods", Version: "v1", Namespace: "default"}).Sink
	s.say("# LIST: a, b")
	must(t, sink.Replace([]*apiclient.Object{pod("a", "1"), pod("b", "2")}, "2"))
	got := map[string]bool{s.expect(t): true, s.expect(t): true}
	if len(got) != 2 {
		t.Fatal(got)
	}
	s.say("# the watch breaks; b is deleted meanwhile; the relist (410) lists a only")
	must(t, sink.Replace([]*apiclient.Object{pod("a", "1")}, "9"))
	s.expect(t)
	cancel()
	<-done
	s.say("# the delete handler saw: %s", strings.Join(deletes, ", "))
	s.check(t, "relist_tombstone")
}
