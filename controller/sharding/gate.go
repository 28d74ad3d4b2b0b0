package sharding

import (
	"context"
	"sync"
)

// gate is where a reconcile asks whether this replica may reconcile an object
// now, and where the Sharder narrows what it serves without cutting a
// reconcile short: narrow returns only once every reconcile admitted before it
// has finished. Reconciles admitted after see the new set at once, so a
// replica under steady load still drains: only the reconciles of older epochs
// are waited for.
type gate struct {
	mu       sync.Mutex
	served   Set
	epoch    uint64
	inflight map[uint64]int // epoch → reconciles admitted in it and running
	drained  chan struct{}  // closed when no reconcile of an older epoch runs; nil when nobody waits
}

func newGate() *gate { return &gate{inflight: map[uint64]int{}} }

// admit reports whether h is served; if so the caller must call the release it
// returns when the reconcile is over.
func (g *gate) admit(h uint64) (release func(), ok bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.served.Contains(h) {
		return nil, false
	}
	e := g.epoch
	g.inflight[e]++
	return func() { g.release(e) }, true
}

func (g *gate) release(e uint64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.inflight[e]--; g.inflight[e] == 0 {
		delete(g.inflight, e)
	}
	if g.drained != nil && g.older() == 0 {
		close(g.drained)
		g.drained = nil
	}
}

// older counts the reconciles admitted before the current epoch; mu held.
func (g *gate) older() int {
	n := 0
	for e, c := range g.inflight {
		if e < g.epoch {
			n += c
		}
	}
	return n
}

// set makes s the served set, and waits until the reconciles admitted under an
// older, wider set have finished, or ctx ends (its error: some may still run,
// so the caller must not hand their ranges over yet). Widening a set nobody
// narrowed returns at once.
func (g *gate) set(ctx context.Context, s Set) error {
	g.mu.Lock()
	if !g.served.Minus(s).Empty() {
		g.epoch++
	}
	g.served = s
	// Wait for every reconcile of an older epoch, not only of this narrowing:
	// a narrowing whose wait timed out is finished by the next call.
	if g.older() == 0 {
		g.mu.Unlock()
		return nil
	}
	if g.drained == nil {
		g.drained = make(chan struct{})
	}
	ch := g.drained
	g.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// get is the served set now.
func (g *gate) get() Set {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.served
}
