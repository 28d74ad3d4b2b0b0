package controller

import (
	"context"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/clock"
)

// Request names the object to reconcile: the key that travels through the
// workqueue. It carries no event and no object: Reconcile reads the current state
// from the cache, so whatever happened and however many times, one call brings the
// world in line (level-based, not edge-based).
type Request struct{ Namespace, Name string }

// String is the store's key: "namespace/name", or "name" when cluster-scoped.
func (r Request) String() string {
	return clock.ObjectKey(r.Namespace, r.Name)
}

// RequestFor is the Request of an object.
func RequestFor(obj *apiclient.Object) Request {
	return Request{Namespace: obj.Metadata.Namespace, Name: obj.Metadata.Name}
}

// Result tells the loop what to do after a successful Reconcile.
type Result struct {
	// RequeueAfter, when positive, reconciles the same Request again after this
	// long (for work that waits on time, not on an event).
	RequeueAfter time.Duration
	// Requeue, when RequeueAfter is not set, reconciles the Request again after
	// the Limiter's delay, as a retry would be, but it is not an error: it is not
	// counted in Stats.Errors or logged, and never leads to a drop. The backoff is
	// not cleared, so a Request that keeps asking waits longer each time (for
	// work that waits on something no event will announce: poll with it).
	Requeue bool
}

// Reconciler is the user's logic.
type Reconciler interface {
	Reconcile(ctx context.Context, req Request) (Result, error)
}

// ReconcilerFunc adapts a function to Reconciler.
type ReconcilerFunc func(ctx context.Context, req Request) (Result, error)

// Reconcile calls f.
func (f ReconcilerFunc) Reconcile(ctx context.Context, req Request) (Result, error) {
	return f(ctx, req)
}

// Terminal marks an error that retrying cannot fix (bad input, a spec that
// validation should have caught): the loop logs it and does not requeue.
func Terminal(err error) error { return &terminalError{err} }

type terminalError struct{ err error }

func (e *terminalError) Error() string { return "terminal: " + e.err.Error() }
func (e *terminalError) Unwrap() error { return e.err }
