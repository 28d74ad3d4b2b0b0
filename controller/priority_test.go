package controller_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/trace"
)

// After a restart the informer lists 10,000 objects, each a Request; one of them
// then changes. The change must not wait behind the other 9,999: it is
// reconciled next, as soon as the worker is free. (In one FIFO it came at about
// position 5,000 — half the list, ~5 s of 1 ms reconciles — and at 10,001 had it
// not been listed.)
func TestController_a_change_is_not_queued_behind_the_initial_list(t *testing.T) {
	const listed = 10_000
	rec := newLog(nil)
	rec.calls = make(chan string, listed+10)
	rec.block, rec.started = make(chan struct{}), make(chan string, listed+10)
	changed := fmt.Sprintf("default/p-%05d", listed/2)
	seen := make(chan struct{})
	trace := func(e trace.Event) {
		if e.Stage == trace.Queue && e.Key == changed && (e.Verb == "dedup" || !e.LowPriority) {
			close(seen)
		}
	}
	m := newTestManager(t, controller.ManagerOptions{Trace: trace})
	_, err := controller.New(m.Manager, "pods", controller.Options{}).For(apiclient.Pods).Complete(rec)
	must(t, err)
	m.start(t)
	src := m.scripts.of(t, "pods")
	pods := make([]*apiclient.Object, listed)
	for i := range pods {
		pods[i] = pod(fmt.Sprintf("p-%05d", i), "1")
	}
	must(t, src.Sink.Replace(pods, "1"))
	first := <-rec.started // the worker holds one listed Request; the rest wait
	must(t, src.Sink.Update(pod(fmt.Sprintf("p-%05d", listed/2), "2")))
	<-seen
	close(rec.block) // from now on every Reconcile returns at once
	var order []string
	for len(order) < listed {
		order = append(order, strings.TrimSuffix(<-rec.calls, " err=<nil>"))
	}
	if order[0] != first {
		t.Fatalf("first reconcile %q, want the one in flight %q", order[0], first)
	}
	for i, r := range order {
		if r == changed {
			if i != 1 {
				t.Fatalf("the changed object was reconciled after %d others (want right after the one in flight)", i)
			}
			return
		}
	}
	t.Fatalf("%s never reconciled", changed)
}

// Predicates apply per watch: with GenerationChanged, a status-only update
// reconciles nothing, and a spec change does.
func TestController_watch_applies_its_predicates(t *testing.T) {
	rec := newLog(nil)
	m := newTestManager(t, controller.ManagerOptions{})
	_, err := controller.New(m.Manager, "pods", controller.Options{}).
		For(apiclient.Pods, controller.WithPredicates(controller.GenerationChanged)).
		Complete(rec)
	must(t, err)
	m.start(t)
	src := m.scripts.of(t, "pods")
	withGeneration := func(name, rv string, gen int) *apiclient.Object {
		o := pod(name, rv)
		o.Metadata.Generation = int64(gen)
		return o
	}
	must(t, src.Sink.Replace([]*apiclient.Object{withGeneration("a", "1", 1)}, "1"))
	if got := <-rec.calls; got != "default/a err=<nil>" {
		t.Fatalf("initial list: %q", got)
	}
	must(t, src.Sink.Update(withGeneration("a", "2", 1)))     // status only: dropped
	must(t, src.Sink.Add(withGeneration("sentinel", "3", 1))) // adds always pass
	if got := <-rec.calls; got != "default/sentinel err=<nil>" {
		t.Fatalf("reconciled %q, want default/sentinel: the status-only update must not reconcile", got)
	}
	must(t, src.Sink.Update(withGeneration("a", "4", 2))) // spec: passes
	if got := <-rec.calls; got != "default/a err=<nil>" {
		t.Fatalf("after a spec change: %q", got)
	}
}
