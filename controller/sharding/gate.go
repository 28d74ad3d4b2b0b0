package sharding

import (
	"context"
	"sync"
	"time"
)

// gate is where a reconcile asks whether this replica may reconcile an object
// now, and where the Sharder narrows what it serves without cutting a
// reconcile short: narrow returns only once every reconcile admitted before it
// has finished. Reconciles admitted after see the new set at once, so a
// replica under steady load still drains: only the reconciles of older epochs
// are waited for.
//
// The gate also admits nothing once the Lease's last successful renewal is
// RenewDeadline old (until), whatever the Sharder is doing at that moment: a
// replica stuck in a slow request still stops at its deadline, and the others
// wait LeaseDuration.
type gate struct {
	mu       sync.Mutex
	served   Set
	until    time.Time          // admit nothing from then on; zero: nothing renewed yet
	term     context.Context    // the admitted reconciles' contexts end with it
	lapse    context.CancelFunc // ends term: the deadline passed while they ran
	epoch    uint64
	inflight map[uint64]int // epoch → reconciles admitted in it and running
	drained  chan struct{}  // closed when no reconcile of an older epoch runs; nil when nobody waits
}

func newGate() *gate {
	g := &gate{inflight: map[uint64]int{}}
	g.term, g.lapse = context.WithCancel(context.Background())
	return g
}

// admit reports whether h is served at now; if so the reconcile runs with the
// context it returns, derived from ctx and cancelled if the renew deadline
// passes while it runs (lapsed), and must call release when it is over.
func (g *gate) admit(ctx context.Context, h uint64, now time.Time) (_ context.Context, release func(), ok bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.served.Contains(h) || !now.Before(g.until) {
		return nil, nil, false
	}
	e := g.epoch
	g.inflight[e]++
	rctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(g.term, cancel)
	return rctx, func() { stop(); cancel(); g.release(e) }, true
}

// lapsed cancels the contexts of the reconciles running, if the renew deadline
// has passed at now, and reports how many there were (0 if it has not).
// Reconciles admitted after a later renewal get a context of a new term.
func (g *gate) lapsed(now time.Time) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.until.IsZero() || now.Before(g.until) || g.term.Err() != nil {
		return 0
	}
	g.lapse()
	n := 0
	for _, c := range g.inflight {
		n += c
	}
	return n
}

// deadline is when nothing will be admitted any more, zero before the first
// renewal.
func (g *gate) deadline() time.Time {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.until
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

// narrow makes s the served set, and waits until the reconciles admitted
// under an older, wider set have finished, or ctx ends (its error: some may
// still run, so the caller must not hand their ranges over yet). It waits for
// every reconcile of an older epoch, not only of this narrowing: a narrowing
// whose wait timed out is finished by the next call.
func (g *gate) narrow(ctx context.Context, s Set) error {
	g.mu.Lock()
	if !g.served.Minus(s).Empty() {
		g.epoch++
	}
	g.served = s
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

// widen makes s, which the Sharder has claimed and confirmed, the served set,
// at once. It does not wait for reconciles of an earlier narrowing that timed
// out: their ranges are still claimed (a claim shrinks only after its drain),
// and the next narrowing waits for them.
func (g *gate) widen(s Set) {
	g.mu.Lock()
	g.served = s
	g.mu.Unlock()
}

// renewed moves the deadline after which nothing is admitted.
func (g *gate) renewed(until time.Time) {
	g.mu.Lock()
	if until.After(g.until) {
		g.until = until
	}
	if g.term.Err() != nil {
		g.term, g.lapse = context.WithCancel(context.Background())
	}
	g.mu.Unlock()
}

// halt stops the gate at once: nothing is admitted until the next renewal,
// nothing is served, and the contexts of the reconciles running are
// cancelled; it returns how many there were. For a replica that finds another
// process holding its Lease: that one may be serving these ranges now, so
// there is no draining to wait for.
func (g *gate) halt() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.served.Empty() {
		g.epoch++
	}
	g.served, g.until = nil, time.Time{}
	g.lapse()
	n := 0
	for _, c := range g.inflight {
		n += c
	}
	return n
}

// get is the served set now.
func (g *gate) get() Set {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.served
}
