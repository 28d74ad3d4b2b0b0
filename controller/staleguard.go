package controller

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/controller/trace"
)

// The staleness guard (doc.go, "A stale cache after your own write"): before a
// Request is reconciled again, every cache that holds what its earlier
// reconciles wrote must show those writes; until then the Request is skipped
// and tried again shortly.
//
//	reconcile of R ─▶ write ─▶ answered at rv 15 ─▶ wrote(R, caches, rv 15)
//	next turn of R ─▶ check: does every cache stand at 15 or later,
//	                  holding none of R's deletes?
//	                    yes ─▶ forget R's record; Reconcile
//	                    no  ─▶ skip: AddAfter(5 ms, doubling to 1 s), count it,
//	                           trace it; Reconcile is not called
//
// A write the caches do not show stops being awaited once its object is seen
// deleted, or StaleWaitLimit after its answer (awaited.go): the record of each
// write is the one read-your-own-writes reads wait on too.

// Skipped Requests are tried again after staleRetryBase, doubling with each
// skip in a row, at most staleRetryMax apart: a watch event is usually a few
// milliseconds behind the write that caused it.
const (
	staleRetryBase = 5 * time.Millisecond
	staleRetryMax  = time.Second
)

// staleRetry is that series, the module's one Backoff.
var staleRetry = clock.Backoff{Initial: staleRetryBase, Factor: 2, Max: staleRetryMax}

// StaleWaitLimit bounds how long a write of this process is awaited: past it,
// counted from the write's answer, the guard reconciles the Request on the
// caches as they are, read-your-own-writes reads stop waiting for it, and it is
// given up on for good — counted (kubewire_own_writes_abandoned_total) and
// logged once, with the cache and the write. A healthy watch is milliseconds
// behind; the API server sends every watch a bookmark about once a minute,
// which moves even a quiet or filtered cache on. What the limit saves is a
// controller stuck on a cache that cannot move (its watch failing for minutes;
// a DeltaFIFO informer, whose version only watch events move, after a relist
// that carried the write), or on an answer the watch never reaches (a broken
// server, a proxy that rewrites versions): awaited.go.
const StaleWaitLimit = time.Minute

// staleGuard keeps, per Request, what the reconciles of it wrote and which
// caches must show it. Safe for concurrent use; a Request is reconciled by one
// worker at a time, so its record is written by one reconcile at a time.
type staleGuard struct {
	clock   Clock
	report  func(*awaited) // a write given up on (Manager.gaveUp); may be nil
	mu      sync.Mutex
	records map[Request]*record
	sweepAt int // sweep the records when there are this many (wrote)
}

// record is what the reconciles of one Request wrote that some cache does not
// show yet.
type record struct {
	// uid is the uid the Request's object had in the controller's cache when
	// the write was made; "" when it was not cached.
	uid    string
	writes []*awaited // oldest first
	skips  int        // turns skipped in a row
}

// lag is why a turn is skipped: one cache, and what it does not show yet.
type lag struct {
	cache *informer.Informer
	wrote informer.Written
	again time.Duration // until the Request is tried again
}

func newStaleGuard(clock Clock, report func(*awaited)) *staleGuard {
	return &staleGuard{clock: clock, report: report, records: map[Request]*record{}, sweepAt: 64}
}

// reconcileKey is the context key of a reconcile's reconciling.
type reconcileKey struct{}

// reconciling is what a reconcile's context carries when the guard is on: who
// reconciles what, so that the writes made with it are recorded for them
// (Manager.wrote).
type reconciling struct {
	guard      *staleGuard
	controller string
	req        Request
	uid        string // the uid of req's object in the controller's cache; "" if none
}

func reconcilingOf(ctx context.Context) *reconciling {
	r, _ := ctx.Value(reconcileKey{}).(*reconciling)
	return r
}

// wrote records that a reconcile of req, whose object had uid, made a write
// that caches must show as as say. A record of another uid is of an object
// since deleted or recreated: it is replaced, as client-go's ConsistencyStore
// does.
func (g *staleGuard) wrote(req Request, uid string, as []*awaited) {
	if len(as) == 0 {
		return
	}
	var report []*awaited
	g.mu.Lock()
	rec := g.records[req]
	if rec == nil || rec.uid != uid {
		rec = &record{uid: uid}
		g.records[req] = rec
	}
	rec.writes = append(rec.writes, as...)
	if len(g.records) >= g.sweepAt {
		g.sweep(&report)
	}
	g.mu.Unlock()
	g.gaveUp(report)
}

// check says whether req may be reconciled now, its object having uid in the
// controller's cache (cached false: not there). It may not while a cache does
// not show a write of its record: then lag says which, and when to try again.
// A record whose object is gone from the cache or was recreated (another uid)
// is dropped: its writes were for an object that no longer is. Each write is
// awaited until its cache shows it, until its object is seen deleted, or until
// StaleWaitLimit after its answer: gaveUp, then, is the lag never made up,
// and the guard never waits for that write again.
func (g *staleGuard) check(req Request, uid string, cached bool) (l lag, stale, gaveUp bool) {
	var report []*awaited
	defer func() { g.gaveUp(report) }()
	g.mu.Lock()
	defer g.mu.Unlock()
	rec := g.records[req]
	if rec == nil {
		return lag{}, false, false
	}
	if rec.uid != "" && (!cached || uid != rec.uid) {
		delete(g.records, req)
		return lag{}, false, false
	}
	rec.writes = over(rec.writes, g.clock.Now(), &report)
	if len(rec.writes) == 0 {
		delete(g.records, req)
		if len(report) > 0 {
			l.cache, l.wrote = report[0].cache, report[0].shows
		}
		return l, false, len(report) > 0
	}
	// The cache of the oldest write still awaited, and every write it must
	// show.
	l.cache = rec.writes[0].cache
	for _, a := range rec.writes {
		if a.cache == l.cache {
			merge(&l.wrote, a.shows)
		}
	}
	rec.skips++
	l.again = staleRetry.Step(rec.skips - 1)
	return l, true, false
}

// sweep drops what every cache shows or no longer needs to, so that Requests
// never reconciled again do not keep their records; called with mu held, when
// the records have doubled since the last sweep.
func (g *staleGuard) sweep(report *[]*awaited) {
	now := g.clock.Now()
	for req, rec := range g.records {
		if rec.writes = over(rec.writes, now, report); len(rec.writes) == 0 {
			delete(g.records, req)
		}
	}
	g.sweepAt = max(64, 2*len(g.records))
}

// gaveUp reports the writes given up on, after the guard's lock.
func (g *staleGuard) gaveUp(as []*awaited) {
	for _, a := range as {
		if g.report != nil {
			g.report(a)
		}
	}
}

// merge adds w to have: the newer version, every delete.
func merge(have *informer.Written, w informer.Written) {
	if newer(w.ResourceVersion, have.ResourceVersion) {
		have.ResourceVersion = w.ResourceVersion
	}
	have.Deleted = append(have.Deleted, w.Deleted...)
}

// newer reports whether resourceVersion a is later than b; both are integers
// here (Manager.wrote records no other), and "" is before any.
func newer(a, b string) bool {
	x, errA := strconv.ParseUint(a, 10, 64)
	y, errB := strconv.ParseUint(b, 10, 64)
	return errA == nil && (errB != nil || x > y)
}

// guarded is the guard g as c's hook (admit.go): a Request whose caches do
// not show what its earlier reconciles wrote is admitted later, counted and
// traced; any other is admitted now, with a context that carries who
// reconciles what, so that the writes made with it are recorded for it. The
// uid of its object is read from the controller's own informer (For), fixed
// at Complete.
func (c *Controller) guarded(g *staleGuard) admitFunc {
	primary := c.primary
	return func(ctx context.Context, req Request) admission {
		var uid string
		var cached bool
		if primary != nil {
			uid, cached = primary.UIDOf(req.Namespace, req.Name)
		}
		l, stale, _ := g.check(req, uid, cached)
		if !stale {
			return admission{ctx: context.WithValue(ctx, reconcileKey{}, &reconciling{guard: g, controller: c.name, req: req, uid: uid})}
		}
		c.stats.observe(staleSkip, 0)
		if c.trace != nil {
			c.traceMu.Lock() // after the "queue add" of req, as a reconcile start (add)
			c.emit(trace.Event{Stage: trace.Controller, Verb: "reconcile", Key: req.String(), Outcome: "stale", Informer: l.cache.Name(),
				ResourceVersion: l.cache.StoreResourceVersion(), Awaited: l.wrote.String(), RequeueAfter: l.again})
			c.traceMu.Unlock()
		}
		return admission{verdict: admitLater, after: l.again}
	}
}
