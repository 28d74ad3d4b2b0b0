package controller_test

import (
	"context"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller"
)

// Options.ResyncPeriod reconciles every cached object of the For resource each
// period, whatever predicates the For watch has: a resync changes nothing, so a
// predicate such as GenerationChanged would drop it, and the one periodic
// setting would be silently off (issue 28: 1 reconcile over three periods with
// the predicate, 4 without). Here: the initial list, then one per period.
func TestController_resync_reaches_Reconcile_through_the_For_predicates(t *testing.T) {
	const period = 10 * time.Minute
	tm := newTestManager(t, controller.ManagerOptions{})
	nothing := controller.ReconcilerFunc(func(context.Context, controller.Request) (controller.Result, error) {
		return controller.Result{}, nil
	})
	ctrl, err := controller.New(tm.Manager, "pods", controller.Options{ResyncPeriod: period}).
		For(apiclient.Pods, controller.WithPredicates(controller.GenerationChanged)).Complete(nothing)
	must(t, err)
	tm.Informer(apiclient.Pods) // built now, so that its Script is there to write to
	must(t, tm.scripts.of(t, apiclient.Pods.String()).Sink.Replace([]*apiclient.Object{pod("a", "1")}, "1"))
	tm.start(t)
	waitUntil(t, "the initial reconcile", func() bool { return ctrl.Stats().Reconciles == 1 })
	for i := 2; i <= 4; i++ {
		blockUntilDue(t, tm.clock.BlockUntilDue, period)
		tm.clock.Step(period)
		waitUntil(t, "a resync's reconcile", func() bool { return ctrl.Stats().Reconciles >= uint64(i) })
	}
	if got := ctrl.Stats().Reconciles; got != 4 {
		t.Fatalf("%d reconciles over three resync periods, want 4 (the initial list and one per period)", got)
	}
}

// blockUntilDue waits, up to a minute (a watchdog, not a timing assertion),
// until a wait of d is pending on the fake clock.
func blockUntilDue(t testing.TB, block func(time.Duration), d time.Duration) {
	t.Helper()
	done := make(chan struct{})
	go func() { block(d); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("no wait of %s was started on the fake clock", d)
	}
}
