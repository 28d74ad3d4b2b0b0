package controller_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/kubewire/kubewire/controller"
)

// The reconcile loop alone, with no Manager, no informer and no cluster: a
// workqueue of Requests, a Reconciler, and the worker that runs one over the
// other — sample-controller's loop. What is added to the queue is reconciled;
// an Add of a Request already waiting is absorbed; a Reconcile that fails is
// retried after the Limiter's backoff (5 ms for a first failure). The
// Manager builds every controller with NewController too, and fills its queue
// from informers.
func ExampleNewController() {
	failed := false
	last := make(chan struct{})
	r := controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
		// One worker: Reconciles come one at a time, in queue order.
		if req.Name == "web-2" && !failed {
			failed = true
			fmt.Println("reconcile", req, "failed: will retry")
			return controller.Result{}, errors.New("the world disagrees, for now")
		}
		fmt.Println("reconcile", req)
		if req.Name == "web-2" {
			close(last)
		}
		return controller.Result{}, nil
	})
	// nil: the wall clock; a discarding logger keeps the retry's warning out.
	c := controller.NewController("hello", r, controller.Options{Workers: 1}, nil, slog.New(slog.DiscardHandler))

	q := c.Queue()
	q.Add(controller.Request{Namespace: "demo", Name: "web-1"})
	q.Add(controller.Request{Namespace: "demo", Name: "web-2"})
	q.Add(controller.Request{Namespace: "demo", Name: "web-1"}) // waiting already: absorbed

	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- c.Run(ctx) }()
	<-last
	stop() // Run lets the Reconcile in flight finish, then returns
	if err := <-done; err != nil {
		fmt.Println(err)
	}
	st := c.Stats()
	fmt.Printf("%d reconciles, %d error\n", st.Reconciles, st.Errors)
	// Output:
	// reconcile demo/web-1
	// reconcile demo/web-2 failed: will retry
	// reconcile demo/web-2
	// 3 reconciles, 1 error
}
