package controller_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/informer/informertest"
)

// reconcileLog is a Reconciler whose answers the test scripts per call, and that
// reports each call on a channel.
type reconcileLog struct {
	mu      sync.Mutex
	answers map[string][]error // per request, in order; past the end: success
	calls   chan string
	block   chan struct{} // if set, Reconcile waits on it (or on ctx)
	started chan string   // with block: told when a Reconcile has begun waiting
}

func (r *reconcileLog) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	if r.block != nil {
		r.started <- req.String()
		select {
		case <-r.block:
		case <-ctx.Done():
			r.calls <- req.String() + " cancelled"
			return controller.Result{}, ctx.Err()
		}
	}
	r.mu.Lock()
	var err error
	if a := r.answers[req.String()]; len(a) > 0 {
		err, r.answers[req.String()] = a[0], a[1:]
	}
	r.mu.Unlock()
	if err != nil && err.Error() == "panic" {
		panic("boom")
	}
	r.calls <- fmt.Sprintf("%s err=%v", req, err)
	if err != nil && err.Error() == "requeue" {
		return controller.Result{RequeueAfter: time.Minute}, nil
	}
	return controller.Result{}, err
}

type fixture struct {
	ctrl  *controller.Controller
	clock *clock.Fake
	src   *informertest.Script
	rec   *reconcileLog
	tm    *testManager
}

// newController runs a controller of pods on a testManager, its pods informer
// fed by a script, after an empty initial list.
func newController(t *testing.T, rec controller.Reconciler, opts controller.Options) *fixture {
	t.Helper()
	tm := newTestManager(t, controller.ManagerOptions{})
	ctrl, err := controller.New(tm.Manager, "pods", opts).For(apiclient.Pods).Complete(rec)
	must(t, err)
	tm.start(t)
	f := &fixture{ctrl: ctrl, clock: tm.clock, src: tm.scripts.of(t, "pods"), tm: tm}
	f.rec, _ = rec.(*reconcileLog)
	must(t, f.src.Sink.Replace(nil, "1"))
	return f
}

func newLog(answers map[string][]error) *reconcileLog {
	return &reconcileLog{answers: answers, calls: make(chan string, 100)}
}

func TestController_reconciles_each_changed_object(t *testing.T) {
	f := newController(t, newLog(nil), controller.Options{})
	must(t, f.src.Sink.Add(pod("a", "2")))
	if got := <-f.rec.calls; got != "default/a err=<nil>" {
		t.Fatalf("got %q", got)
	}
	must(t, f.src.Sink.Delete(pod("a", "3")))
	if got := <-f.rec.calls; got != "default/a err=<nil>" {
		t.Fatalf("after delete got %q", got)
	}
	// Reconcile has returned, but the loop records the call just after: wait for it.
	waitUntil(t, "2 reconciles counted", func() bool { return f.ctrl.Stats().Reconciles >= 2 })
	if s := f.ctrl.Stats(); s.Reconciles != 2 || s.Errors != 0 {
		t.Fatalf("stats %+v", s)
	}
}

func TestController_failing_reconcile_backs_off_then_is_dropped(t *testing.T) {
	fail := errors.New("apiserver said no")
	f := newController(t, newLog(map[string][]error{"default/a": {fail, fail, fail, fail}}), controller.Options{MaxRetries: 3})
	must(t, f.src.Sink.Add(pod("a", "2")))
	// Backoff of the default limiter: 5 ms, 10 ms, 20 ms. Nothing is retried
	// before its time.
	for i, wait := range []time.Duration{0, 5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond} {
		if wait > 0 {
			waitForTimer(t, f.clock) // the worker has re-queued
			f.clock.Step(wait - time.Nanosecond)
			select {
			case got := <-f.rec.calls:
				t.Fatalf("try %d came early: %q", i+1, got)
			default:
			}
			f.clock.Step(time.Nanosecond)
		}
		if got := <-f.rec.calls; got != "default/a err=apiserver said no" {
			t.Fatalf("try %d: %q", i+1, got)
		}
	}
	// 1 try + 3 retries, then dropped: no timer left, and a new event starts afresh.
	must(t, f.src.Sink.Update(pod("a", "3")))
	if got := <-f.rec.calls; got != "default/a err=<nil>" {
		t.Fatalf("after drop: %q", got)
	}
	if s := f.ctrl.Stats(); s.Dropped != 1 || s.Errors != 4 {
		t.Fatalf("stats %+v, want 1 dropped after 4 errors", s)
	}
}

func TestController_terminal_errors_are_not_retried(t *testing.T) {
	f := newController(t, newLog(map[string][]error{"default/a": {controller.Terminal(errors.New("bad spec"))}}), controller.Options{})
	must(t, f.src.Sink.Add(pod("a", "2")))
	<-f.rec.calls
	if n := f.ctrl.Queue().NumRequeues(controller.Request{Namespace: "default", Name: "a"}); n != 0 || f.clock.Timers() != 0 {
		t.Fatalf("requeues %d timers %d after a terminal error", n, f.clock.Timers())
	}
}

func TestController_requeue_after(t *testing.T) {
	f := newController(t, newLog(map[string][]error{"default/a": {errors.New("requeue")}}), controller.Options{})
	must(t, f.src.Sink.Add(pod("a", "2")))
	<-f.rec.calls
	waitForTimer(t, f.clock)
	f.clock.Step(time.Minute)
	if got := <-f.rec.calls; got != "default/a err=<nil>" {
		t.Fatalf("requeued call: %q", got)
	}
}

func TestController_panic_in_reconcile_is_an_error(t *testing.T) {
	f := newController(t, newLog(map[string][]error{"default/a": {errors.New("panic")}}), controller.Options{})
	must(t, f.src.Sink.Add(pod("a", "2")))
	waitForTimer(t, f.clock) // requeued with backoff, process alive
	f.clock.Step(5 * time.Millisecond)
	if got := <-f.rec.calls; got != "default/a err=<nil>" {
		t.Fatalf("after panic: %q", got)
	}
	if s := f.ctrl.Stats(); s.Panics != 1 || s.Errors != 1 {
		t.Fatalf("stats %+v", s)
	}
}

func TestController_shutdown_waits_for_reconciles_up_to_the_timeout(t *testing.T) {
	rec := newLog(nil)
	rec.block = make(chan struct{})
	rec.started = make(chan string, 10)
	f := newController(t, rec, controller.Options{ShutdownTimeout: 10 * time.Second})
	must(t, f.src.Sink.Add(pod("a", "2")))
	must(t, f.src.Sink.Add(pod("b", "2")))
	<-rec.started // a reconcile is in flight (one worker: a)
	f.tm.cancel()
	waitForTimer(t, f.clock) // the shutdown timer is armed: Run is waiting
	select {
	case <-f.tm.done:
		t.Fatal("Run returned while a reconcile was in flight")
	default:
	}
	f.clock.Step(10 * time.Second)
	if got := <-rec.calls; got != "default/a cancelled" {
		t.Fatalf("got %q", got)
	}
	if err := f.tm.stop(); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-rec.calls:
		t.Fatalf("b was reconciled after shutdown began: %q", got)
	default:
	}
}

// hungReconciler blocks until released, whatever its context says: the reconcile
// that a careful controller must still be able to shut down around.
type hungReconciler struct {
	started chan string
	release chan struct{}
}

func (h *hungReconciler) Reconcile(_ context.Context, req controller.Request) (controller.Result, error) {
	h.started <- req.String()
	<-h.release
	return controller.Result{}, nil
}

func TestController_shutdown_leaves_behind_a_reconcile_that_ignores_cancellation(t *testing.T) {
	hung := &hungReconciler{started: make(chan string, 1), release: make(chan struct{})}
	defer close(hung.release) // the goroutine left behind ends with the test
	f := newController(t, hung, controller.Options{ShutdownTimeout: 10 * time.Second})
	clock, done := f.clock, f.tm.done
	must(t, f.src.Sink.Add(pod("a", "2")))
	<-hung.started
	f.tm.cancel()
	waitForTimer(t, clock)
	clock.Step(10 * time.Second) // the reconcile's context is cancelled; it takes no notice
	// The grace timer is armed (old code armed none and waited without bound; the
	// real-time deadline is a watchdog, not a timing assertion).
	waitUntil(t, "a grace timer after the reconcile's context was cancelled (Run would wait for it without bound)", func() bool { return clock.Timers() > 0 })
	select {
	case <-done:
		t.Fatalf("Run returned (%v) at the first timeout, before the cancelled reconcile's grace", f.tm.err)
	default:
	}
	clock.Step(10 * time.Second)
	select {
	case <-done:
		if err := f.tm.err; err == nil || !strings.Contains(err.Error(), "still running 20s after shutdown began") {
			t.Fatalf("Manager.Run returned %v, want an error saying the reconcile was left running", err)
		}
	case <-time.After(time.Minute): // a watchdog, not a timing assertion: old code blocked forever
		t.Fatal("Run is still waiting for a reconcile that ignores its context, 20 fake seconds after shutdown began")
	}
}

// waitForTimer blocks until the fake clock has a timer armed.
func waitForTimer(t testing.TB, c *clock.Fake) {
	t.Helper()
	waitUntil(t, "a timer armed on the fake clock", func() bool { return c.Timers() > 0 })
}

// waitUntil lets other goroutines run until cond holds: a state the test can
// observe, never time passing. A minute without it fails the test (a watchdog,
// not a timing assertion: a regression fails here instead of hanging until the
// test binary's timeout).
func waitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for watchdog := time.Now().Add(time.Minute); !cond(); runtime.Gosched() {
		if time.Now().After(watchdog) {
			t.Fatalf("not within a minute: %s", what)
		}
	}
}
