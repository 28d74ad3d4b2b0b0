package controller_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/informer"
)

// busyReconciler spends a fixed amount of CPU on every Request — hashing 64 KiB,
// about 47 µs here: a cheap Reconcile that finds nothing to do — and reports
// when it reaches the one it waits for.
type busyReconciler struct {
	work    []byte
	waitFor controller.Request
	reached chan struct{}
	began   sync.Once
	first   chan struct{} // closed by the first Reconcile
}

func (r *busyReconciler) Reconcile(_ context.Context, req controller.Request) (controller.Result, error) {
	r.began.Do(func() { close(r.first) })
	sha256.Sum256(r.work)
	if req == r.waitFor {
		close(r.reached)
	}
	return controller.Result{}, nil
}

// How long one real change waits when it arrives just after a restart, behind
// an initial list of 10,000 objects, with one worker: the time from the watch
// event to the start of its Reconcile, as ms/change. "priority" is Watch (the
// initial list at low priority); "one FIFO" queues every event alike, as
// client-go's workqueue and controller-runtime before v0.23 do.
//
//	go test -run '^$' -bench Change_after_a_restart -benchtime 5x ./controller
func BenchmarkChange_after_a_restart(b *testing.B) {
	const listed = 10_000
	for _, mode := range []string{"priority", "one FIFO"} {
		b.Run(mode, func(b *testing.B) {
			var total time.Duration
			for range b.N {
				total += changeLatency(b, listed, mode == "priority")
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/change")
		})
	}
}

func changeLatency(b *testing.B, listed int, priority bool) time.Duration {
	m := newTestManager(b, controller.ManagerOptions{Clock: controller.RealClock{}})
	changed := pod(fmt.Sprintf("p-%05d", listed/2), "2")
	rec := &busyReconciler{work: make([]byte, 64<<10), waitFor: controller.RequestFor(changed), reached: make(chan struct{}), first: make(chan struct{})}
	builder := controller.New(m.Manager, "pods", controller.Options{})
	if priority {
		builder.For(apiclient.Pods)
	} else {
		builder.For(apiclient.ConfigMaps).WatchesWith(apiclient.Pods, func(enqueue func(controller.Request)) informer.Handler {
			own := func(o *apiclient.Object) { enqueue(controller.RequestFor(o)) }
			return informer.HandlerFuncs{
				AddFunc:    func(o *apiclient.Object, _ bool) { own(o) },
				UpdateFunc: func(_, o *apiclient.Object) { own(o) },
				DeleteFunc: func(o *apiclient.Object, _ bool) { own(o) },
			}
		})
	}
	if _, err := builder.Complete(rec); err != nil {
		b.Fatal(err)
	}
	m.start(b)
	defer func() { _ = m.stop() }()
	if !priority {
		if err := m.scripts.of(b, "configmaps").Sink.Replace(nil, "1"); err != nil {
			b.Fatal(err)
		}
	}
	src := m.scripts.of(b, "pods")

	pods := make([]*apiclient.Object, listed)
	for i := range pods {
		pods[i] = pod(fmt.Sprintf("p-%05d", i), "1")
	}
	if err := src.Sink.Replace(pods, "1"); err != nil {
		b.Fatal(err)
	}
	<-rec.first // workers start once the handler has the whole list: it is queued
	began := time.Now()
	if err := src.Sink.Update(changed); err != nil {
		b.Fatal(err)
	}
	<-rec.reached
	return time.Since(began)
}
