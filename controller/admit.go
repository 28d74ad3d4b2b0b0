package controller

import (
	"context"
	"time"
)

// Before a worker reconciles a Request it asks one hook whether to, and does
// what the answer says:
//
//	Get ─▶ admit ─▶ now     Reconcile, with the context admit gives ─▶ release ─▶ Forget / requeue ─▶ Done
//	             ├▶ later   AddAfter(after): not reconciled, not an error ─▶ Done
//	             └▶ drop    Forget: not this worker's to reconcile ─▶ Done
//
// A Controller alone admits every Request now (NewController). The Manager
// installs, in each controller it builds, the sharding gate and then the
// staleness guard (admitter, below): the loop (controller.go) knows of neither.
// A hook that says later or drop has counted and traced why itself.

// verdict is a hook's answer: now, later or drop.
type verdict int

const (
	admitNow   verdict = iota // reconcile it now
	admitLater                // not yet: queue it again after admission.after
	admitDrop                 // not this replica's, or gone: forget it
)

// admission is a hook's answer for one Request.
type admission struct {
	verdict verdict
	// ctx is the context the Reconcile runs with (now); release, when set, is
	// called once that Reconcile is over.
	ctx     context.Context
	release func()
	// after is how long until the Request is tried again (later).
	after time.Duration
}

// admitFunc is the hook: it says whether req is reconciled now, given the
// worker's context. It is called on the worker's goroutine, once per Request
// taken from the queue.
type admitFunc func(ctx context.Context, req Request) admission

// then is a, and for what a admits now, b, given a's context; the Reconcile
// releases both. A nil a or b admits everything now.
func (a admitFunc) then(b admitFunc) admitFunc {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return func(ctx context.Context, req Request) admission {
		first := a(ctx, req)
		if first.verdict != admitNow {
			return first
		}
		second := b(first.ctx, req)
		if second.verdict != admitNow {
			if first.release != nil {
				first.release()
			}
			return second
		}
		release := second.release
		if first.release != nil {
			release = func() {
				if second.release != nil {
					second.release()
				}
				first.release()
			}
		}
		return admission{ctx: second.ctx, release: release}
	}
}

// admitter is the hook the Manager installs in c, a controller it built, at
// Complete: with sharding, the gate (only this replica's share of the For
// resource, while its Lease holds: manager_sharding.go), then, unless
// Options.DisableStaleGuard, the staleness guard (not while a cache lags what
// the Request's earlier reconciles wrote: staleguard.go). Both are settled
// here, once: nothing of it is looked up again per Request.
func (m *Manager) admitter(c *Controller) admitFunc {
	var hook admitFunc
	if m.gated() {
		hook = m.shardGate(c)
	}
	if !c.opts.DisableStaleGuard {
		hook = hook.then(c.guarded(newStaleGuard(m.clock(), m.gaveUp)))
	}
	return hook
}
