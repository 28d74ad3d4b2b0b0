package controller

import "github.com/kubewire/kubewire/apiclient/clock"

// Clock is the one time source of a Manager and everything it runs: the
// workqueues' delays and metrics, the shutdown timeout, the informers' resyncs,
// their Reflectors' backoffs, leader election's and sharding's waits, the
// events Recorders, the metrics' ages. It is the module's one Clock
// (apiclient/clock); ManagerOptions.Clock sets it for all of them, the
// Manager's client's rate limiting and Retry-After waits included (NewManager
// adopts its client with it), and left unset it is the client's own.
// clock.Fake is the fake tests step;
// RealClock is the wall clock. Two waits do not follow it: a Reconcile's
// ReconcileTimeout (context.WithTimeout, wall-clock time) and the short waits of
// apiclient.RetryOnConflict and the finalizer helpers between conflicting
// writes (10 ms, wall-clock).
type Clock = clock.Clock

// RealClock is the wall clock, clock.Real. The zero value is ready to use.
type RealClock = clock.Real
