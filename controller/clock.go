package controller

import (
	"time"

	"github.com/kubewire/kubewire/queue"
)

// Clock is the one time source of a Manager and everything it runs: it is a
// queue.Clock (the workqueues' delays and metrics, the shutdown timeout) and an
// apiclient.Clock (the informers' resyncs, their Reflectors' backoffs, leader
// election's and sharding's waits, the events Recorders, the metrics' ages).
// ManagerOptions.Clock sets it for all of them; give the Manager's client the
// same one (apiclient.Options.Clock) for its rate limiting and Retry-After
// waits. apiclient/apitest's Clock is the fake tests step; RealClock is the
// wall clock. Two waits do not follow it: a Reconcile's ReconcileTimeout
// (context.WithTimeout, wall-clock time) and the short waits of
// apiclient.RetryOnConflict and the finalizer helpers between conflicting
// writes (10 ms, wall-clock).
type Clock interface {
	queue.Clock
	// After is time.After, as apiclient.Clock has it.
	After(d time.Duration) <-chan time.Time
}

// RealClock is the wall clock for both halves: queue.RealClock's Now, Since and
// AfterFunc, and time.After. The zero value is ready to use.
type RealClock struct{ queue.RealClock }

// After is time.After.
func (RealClock) After(d time.Duration) <-chan time.Time { return time.After(d) }
