package controller_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller"
)

// waitRetriedOrDropped waits until the loop has decided what to do with a failed
// Request: a retry timer armed, or the Request dropped (then it fails the test).
func waitRetriedOrDropped(t *testing.T, f *fixture, failures int) {
	t.Helper()
	waitUntil(t, "the retry's timer", func() bool {
		if d := f.ctrl.Stats().Dropped; d > 0 {
			t.Fatalf("dropped after %d failures in a row; the default is to retry without a limit", failures)
		}
		return f.clock.Timers() > 0
	})
}

func TestController_default_retries_without_limit_backing_off_to_the_cap(t *testing.T) {
	fail := errors.New("admission webhook said no")
	answers := make([]error, 20)
	for i := range answers {
		answers[i] = fail
	}
	f := newController(t, newLog(map[string][]error{"default/a": answers}), controller.Options{})
	must(t, f.src.Sink.Add(pod("a", "2")))
	for n := 1; n <= 20; n++ {
		if got := <-f.rec.calls; got != "default/a err=admission webhook said no" {
			t.Fatalf("try %d: %q", n, got)
		}
		waitRetriedOrDropped(t, f, n)
		// The n-th failure in a row waits 5 ms·2ⁿ⁻¹, capped at DefaultMaxBackoff.
		wait := min(5*time.Millisecond<<(n-1), controller.DefaultMaxBackoff)
		f.clock.Step(wait - time.Nanosecond)
		select {
		case got := <-f.rec.calls:
			t.Fatalf("retry after failure %d came before %s: %q", n, wait, got)
		default:
		}
		f.clock.Step(time.Nanosecond)
	}
	if got := <-f.rec.calls; got != "default/a err=<nil>" {
		t.Fatalf("try 21: %q", got)
	}
	waitUntil(t, "21 reconciles counted", func() bool { return f.ctrl.Stats().Reconciles >= 21 })
	if s := f.ctrl.Stats(); s.Dropped != 0 || s.Errors != 20 {
		t.Fatalf("stats %+v, want 20 errors and nothing dropped", s)
	}
}

// ownedPod is a pod whose label "owner" names the Request a secondary watch maps
// it to.
func ownedPod(name, rv, owner string) *apiclient.Object {
	o, err := apiclient.DecodeObject([]byte(fmt.Sprintf(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":%q,"namespace":"default","resourceVersion":%q,"labels":{"owner":%q}}}`, name, rv, owner)))
	if err != nil {
		panic(err)
	}
	return o
}

func byOwner(o *apiclient.Object) []controller.Request {
	return []controller.Request{{Namespace: "default", Name: o.Metadata.Labels["owner"]}}
}

// until collects the reconciles up to and including sentinel's, sorted. With one
// worker and a FIFO queue, every Request queued before sentinel's comes first.
func until(rec *reconcileLog, sentinel string) string {
	var got []string
	for {
		line := strings.TrimSuffix(<-rec.calls, " err=<nil>")
		if line == sentinel {
			sort.Strings(got)
			return strings.Join(got, " ")
		}
		got = append(got, line)
	}
}

func TestController_watch_maps_the_old_and_the_new_owner_on_update(t *testing.T) {
	m := newTestManager(t, controller.ManagerOptions{})
	rec := newLog(nil)
	ctrl, err := controller.New(m.Manager, "owners", controller.Options{}).
		For(apiclient.ConfigMaps). // the owners: nothing listed, the Requests come from the pods
		Watches(apiclient.Pods, byOwner).
		Complete(rec)
	must(t, err)
	m.start(t)
	must(t, m.scripts.of(t, "configmaps").Sink.Replace(nil, "1"))
	src := m.scripts.of(t, "pods")
	// The initial list's Requests are queued at low priority, behind any later
	// change, so it is waited for on its own.
	must(t, src.Sink.Replace([]*apiclient.Object{ownedPod("p", "1", "x")}, "1"))
	if got := until(rec, "default/x"); got != "" {
		t.Fatalf("after the initial list: reconciled %q before default/x", got)
	}
	// x's Reconcile has been called; until the queue is told it is done, an Add
	// of x only marks it to run again then, which can be after the sentinel below.
	waitUntil(t, "the initial Reconcile of x to be done", func() bool { return ctrl.Queue().Metrics().Processing == 0 })
	// Each step writes, then adds a sentinel pod owned by sentinel-N, and collects
	// the Requests reconciled up to the sentinel's.
	steps := []struct {
		what  string
		write func() error
		want  string
	}{
		// p moves from owner x to owner y: x must learn it lost p, y that it gained it.
		{"p moved from x to y", func() error { return src.Sink.Update(ownedPod("p", "3", "y")) }, "default/x default/y"},
		// A watched delete: the final state's owner.
		{"p deleted", func() error { return src.Sink.Delete(ownedPod("p", "5", "y")) }, "default/y"},
		{"q added", func() error { return src.Sink.Add(ownedPod("q", "7", "z")) }, "default/z"},
		// A delete learned from a relist (final state unknown): the cached state's
		// owner. The relist lists the sentinels as they were (no change, no call).
		{"a relist without q", func() error {
			return src.Sink.Replace([]*apiclient.Object{ownedPod("s1", "2", "sentinel-1"), ownedPod("s2", "4", "sentinel-2"),
				ownedPod("s3", "6", "sentinel-3")}, "9")
		}, "default/z"},
	}
	for i, step := range steps {
		must(t, step.write())
		sentinel := fmt.Sprintf("sentinel-%d", i+1)
		must(t, src.Sink.Add(ownedPod(fmt.Sprintf("s%d", i+1), fmt.Sprint(2*i+2), sentinel)))
		if got := until(rec, "default/"+sentinel); got != step.want {
			t.Fatalf("after %s: reconciled %q, want %q", step.what, got, step.want)
		}
	}
}

func TestController_starts_without_waiting_for_another_handler_on_a_shared_informer(t *testing.T) {
	m := newTestManager(t, controller.ManagerOptions{})
	stuck := newRecorder()
	stuck.Gate = make(chan struct{}) // never opened while the test runs: the handler hangs
	m.Informer(apiclient.Pods).AddHandler("stuck", stuck, 0)
	rec := newLog(nil)
	_, err := controller.New(m.Manager, "pods", controller.Options{}).For(apiclient.Pods).Complete(rec)
	must(t, err)
	m.start(t)
	t.Cleanup(func() { close(stuck.Gate) }) // before the Manager stops: it waits for the handler
	must(t, m.scripts.of(t, "pods").Sink.Replace([]*apiclient.Object{pod("a", "1")}, "1"))
	select {
	case got := <-rec.calls:
		if got != "default/a err=<nil>" {
			t.Fatalf("got %q", got)
		}
	case <-time.After(time.Minute): // a watchdog, not a timing assertion: old code waited forever
		t.Fatal("no reconcile: the controller waits for another controller's handler to sync")
	}
}

// A controller described while the Manager runs starts at once, with informers
// of its own that the Manager starts for it.
func TestController_completed_while_the_Manager_runs_reconciles(t *testing.T) {
	f := newController(t, newLog(nil), controller.Options{})
	late := newLog(nil)
	_, err := controller.New(f.tm.Manager, "late", controller.Options{}).For(apiclient.ConfigMaps).Complete(late)
	must(t, err)
	must(t, f.tm.scripts.of(t, "configmaps").Sink.Replace([]*apiclient.Object{pod("late", "1")}, "1"))
	if got := <-late.calls; got != "default/late err=<nil>" {
		t.Fatalf("got %q", got)
	}
}

func TestController_completed_after_the_Manager_stopped_is_an_error(t *testing.T) {
	m := newTestManager(t, controller.ManagerOptions{})
	m.start(t)
	must(t, m.stop())
	_, err := controller.New(m.Manager, "pods", controller.Options{}).For(apiclient.Pods).Complete(newLog(nil))
	if err == nil || !strings.Contains(err.Error(), "the Manager has stopped") {
		t.Fatalf("Complete after Run returned: %v, want an error saying the Manager has stopped", err)
	}
}

// A second controller with a name the Manager has is an error from Complete,
// and nothing of it is built: no handler on an informer, no informer of its
// own, no metric (issue 36: the Manager panicked registering its workqueue's
// metrics twice, after it had appended the controller). The first runs on.
func TestController_a_second_controller_of_the_same_name_is_an_error(t *testing.T) {
	m := newTestManager(t, controller.ManagerOptions{})
	_, err := controller.New(m.Manager, "same", controller.Options{}).For(apiclient.Pods).Complete(newLog(nil))
	must(t, err)
	_, err = controller.New(m.Manager, "same", controller.Options{}).For(apiclient.ConfigMaps).Complete(newLog(nil))
	if err == nil || !strings.Contains(err.Error(), `a controller named "same" was added to this Manager already`) {
		t.Fatalf("the second Complete: %v, want an error naming the name taken", err)
	}
	page := scrape(t, m.Registry())
	if n := strings.Count(page, `workqueue_depth{name="same"}`); n != 1 {
		t.Fatalf("workqueue_depth{name=\"same\"} on the page %d times, want 1:\n%s", n, page)
	}
	if strings.Contains(page, `informer="configmaps"`) {
		t.Fatalf("the refused controller's informer was made:\n%s", page)
	}
}

// requeuer asks to be requeued a few times, then is done.
type requeuer struct {
	left  int
	calls chan string
}

func (r *requeuer) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	r.left--
	r.calls <- fmt.Sprintf("%s requeue=%v", req, r.left >= 0)
	return controller.Result{Requeue: r.left >= 0}, nil
}

func TestController_requeue_is_rate_limited_and_not_an_error(t *testing.T) {
	rec := &requeuer{left: 3, calls: make(chan string, 10)}
	// MaxRetries 1: a Request that asks for Requeue three times is still not dropped.
	f := newController(t, rec, controller.Options{MaxRetries: 1})
	clock, ctrl := f.clock, f.ctrl
	must(t, f.src.Sink.Add(pod("a", "1")))
	for i, wait := range []time.Duration{0, 5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond} {
		if wait > 0 {
			waitForTimer(t, clock)
			clock.Step(wait - time.Nanosecond)
			select {
			case got := <-rec.calls:
				t.Fatalf("call %d came before its backoff of %s: %q", i+1, wait, got)
			default:
			}
			clock.Step(time.Nanosecond)
		}
		want := fmt.Sprintf("default/a requeue=%v", i < 3)
		if got := <-rec.calls; got != want {
			t.Fatalf("call %d: %q, want %q", i+1, got, want)
		}
	}
	waitUntil(t, "4 reconciles counted", func() bool { return ctrl.Stats().Reconciles >= 4 })
	if s := ctrl.Stats(); s.Errors != 0 || s.Dropped != 0 || s.Requeues != 3 {
		t.Fatalf("stats %+v, want 3 requeues, no error, nothing dropped", s)
	}
}

func TestController_reconcile_timeout_is_the_context_deadline(t *testing.T) {
	for _, tc := range []struct {
		timeout time.Duration
		want    string
	}{
		{0, "no deadline"},
		{time.Hour, "deadline in 1h0m0s, err <nil>"},
		{time.Nanosecond, "deadline in 0s, err context deadline exceeded"}, // expired before Reconcile looks
	} {
		calls := make(chan string, 1)
		f := newController(t, controller.ReconcilerFunc(func(ctx context.Context, _ controller.Request) (controller.Result, error) {
			d, ok := ctx.Deadline()
			if !ok {
				calls <- "no deadline"
				return controller.Result{}, nil
			}
			// Rounded to the hour: the wall clock has moved a little since.
			calls <- fmt.Sprintf("deadline in %s, err %v", time.Until(d).Round(time.Hour), ctx.Err())
			return controller.Result{}, nil
		}), controller.Options{ReconcileTimeout: tc.timeout})
		must(t, f.src.Sink.Add(pod("a", "1")))
		if got := <-calls; got != tc.want {
			t.Errorf("ReconcileTimeout %s: %q, want %q", tc.timeout, got, tc.want)
		}
	}
}
