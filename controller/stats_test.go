package controller_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kubewire/kubewire/controller"
)

// kubewire_reconcile_total has a result label, one series per way a Request
// ends; every one but stale_skip is a Reconcile call.
func TestMetrics_reconcile_total_by_result(t *testing.T) {
	boom := errors.New("boom")
	r := controller.ReconcilerFunc(func(_ context.Context, req controller.Request) (controller.Result, error) {
		switch req.Name {
		case "again":
			return controller.Result{Requeue: true}, nil
		case "later":
			return controller.Result{RequeueAfter: time.Hour}, nil
		case "broken":
			return controller.Result{}, controller.Terminal(boom)
		case "failing":
			return controller.Result{}, boom
		}
		return controller.Result{}, nil
	})
	f := newController(t, r, controller.Options{})
	for _, name := range []string{"fine", "again", "later", "broken", "failing"} {
		must(t, f.src.Sink.Add(pod(name, "2")))
	}
	waitUntil(t, "five reconciles", func() bool { return f.ctrl.Stats().Reconciles == 5 })
	page := scrape(t, f.tm.Registry())
	for _, want := range []string{
		`kubewire_reconcile_total{controller="pods",result="success"} 1`,
		`kubewire_reconcile_total{controller="pods",result="requeue"} 1`,
		`kubewire_reconcile_total{controller="pods",result="requeue_after"} 1`,
		`kubewire_reconcile_total{controller="pods",result="terminal"} 1`,
		`kubewire_reconcile_total{controller="pods",result="error"} 1`,
		`kubewire_reconcile_total{controller="pods",result="stale_skip"} 0`,
		`kubewire_reconcile_errors_total{controller="pods"} 2`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("metrics page lacks %q", want)
		}
	}
	if s := f.ctrl.Stats(); s.Reconciles != 5 || s.Errors != 2 || s.Terminal != 1 || s.Requeues != 1 || s.RequeuedAfter != 1 {
		t.Errorf("stats %+v", s)
	}
}

// kubewire_reconcile_backoff_requests counts the Requests waiting out a
// backoff: one after its failure, none once a worker has taken it again. A
// RequeueAfter is not a backoff.
func TestMetrics_backoff_gauge_counts_requests_waiting_to_be_retried(t *testing.T) {
	f := newController(t, newLog(map[string][]error{"default/a": {errors.New("boom")}}), controller.Options{})
	gauge := func() string {
		for _, line := range strings.Split(scrape(t, f.tm.Registry()), "\n") {
			if strings.HasPrefix(line, `kubewire_reconcile_backoff_requests{controller="pods"} `) {
				return strings.TrimPrefix(line, `kubewire_reconcile_backoff_requests{controller="pods"} `)
			}
		}
		t.Fatal("no kubewire_reconcile_backoff_requests on the page")
		return ""
	}
	must(t, f.src.Sink.Add(pod("a", "2")))
	if got := nextCall(t, f.rec); got != "default/a err=boom" {
		t.Fatalf("first try: %q", got)
	}
	waitRetriedOrDropped(t, f, 1)
	if got := gauge(); got != "1" {
		t.Fatalf("after a failure, backoff gauge %s, want 1", got)
	}
	f.clock.Step(5 * time.Millisecond)
	if got := nextCall(t, f.rec); got != "default/a err=<nil>" {
		t.Fatalf("retry: %q", got)
	}
	if got := gauge(); got != "0" {
		t.Fatalf("after the retry, backoff gauge %s, want 0", got)
	}
}

// nextCall is the next reconcile rec logs; it fails the test after a minute.
func nextCall(t testing.TB, rec *reconcileLog) string {
	t.Helper()
	select {
	case got := <-rec.calls:
		return got
	case <-time.After(time.Minute):
		t.Fatal("no reconcile within a minute")
		return ""
	}
}
