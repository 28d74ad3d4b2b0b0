package controller

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/selector"
	"github.com/kubewire/kubewire/controller/informer"
)

// What the Manager makes of its client's writes (the Write of the
// apiclient.Observer NewManager adopts its client with, onWrite). Each write of one object the server
// accepts tells what the caches that would hold the object must show of it —
// the version it was answered with, or, for a delete answered with a Status,
// the object gone — as one awaited record per cache (awaited.go), which two
// readers wait on until the cache shows it, its object is seen deleted, or it
// is given up on StaleWaitLimit after its answer:
//
//   - the staleness guard of the controller whose reconcile made the write,
//     when it was made with the reconcile's context (staleguard.go);
//   - read-your-own-writes reads (informer.WaitForOwnWrites): the Manager
//     gives each informer it builds Options.OwnWrites, which waits for the
//     writes of its resource still in flight and returns what the informer
//     must still show of every write over.
//
// A write is given up on once, whoever notices first: counted, logged
// (Manager.gaveUp), and never awaited again by either.
//
// A write whose answer carries a version that is not an integer (a server
// whose versions are opaque) tells nothing: there is no order to wait in. A
// delete answered with a Status is still waited for by uid, which needs none.

// writes is the Manager's record of its client's writes. Its clock and
// report are set once by NewManager. Safe for concurrent use.
type writes struct {
	clock  Clock
	report func(*awaited) // a write given up on (Manager.gaveUp)

	mu       sync.Mutex
	seq      uint64
	inflight map[string]map[uint64]chan struct{} // resource → writes begun, not over
	awaited  map[*informer.Informer]*awaitList   // what each cache must still show
}

// awaitList is one cache's awaited writes, oldest first; swept when it has
// doubled since the last sweep, so that writes nobody reads do not pile up.
type awaitList struct {
	as      []*awaited
	sweepAt int
}

// onWrite is the Write of the client's Observer: it counts the write in flight, and once it
// is over, hands what it wrote to the caches that would hold the object.
func (m *Manager) onWrite(ctx context.Context, w apiclient.WriteInfo) func(*apiclient.Object, error) {
	end := m.writes.begin(w.Resource.String())
	return func(answer *apiclient.Object, err error) {
		defer end()
		if err == nil && answer != nil {
			m.wrote(ctx, w, answer)
		}
	}
}

// wrote hands one accepted write to the informers that would hold its object
// and, when a reconcile made it, to that controller's guard: one record per
// cache, shared by both (awaited.go).
func (m *Manager) wrote(ctx context.Context, w apiclient.WriteInfo, answer *apiclient.Object) {
	shown, byKey := writtenBy(w, answer)
	if shown.ResourceVersion == "" && len(shown.Deleted) == 0 {
		return
	}
	caches, keeps := m.cachesOf(w, answer, byKey)
	if len(caches) == 0 {
		return
	}
	wr := &write{resource: w.Resource.String(), namespace: answer.Metadata.Namespace, name: answer.Metadata.Name,
		uid: answer.Metadata.UID, shows: shown, at: m.opts.Clock.Now()}
	if byKey {
		wr.namespace, wr.name, wr.uid = w.Namespace, w.Name, shown.Deleted[0].UID
	}
	r := reconcilingOf(ctx)
	if r != nil {
		wr.controller, wr.request = r.controller, r.req.String()
	}
	as := make([]*awaited, len(caches))
	for i, inf := range caches {
		as[i] = newAwaited(wr, inf, keeps[i])
	}
	m.writes.show(as)
	if r != nil {
		r.guard.wrote(r.req, r.uid, as)
	}
}

// writtenBy is what a cache must show of an accepted write: the version the
// object was answered with, or for a DELETE answered with a Status, the object
// gone (byKey: the answer names the object by the request's namespace and name,
// not by its own metadata). Nothing for a version that is not an integer.
func writtenBy(w apiclient.WriteInfo, answer *apiclient.Object) (shown informer.Written, byKey bool) {
	if answer.Kind == "Status" {
		uid, _ := answer.FieldString("details", "uid")
		if w.Verb != "DELETE" || uid == "" {
			return informer.Written{}, false
		}
		return informer.Written{Deleted: []informer.Deleted{{Namespace: w.Namespace, Name: w.Name, UID: uid}}}, true
	}
	rv := answer.Metadata.ResourceVersion
	if _, err := strconv.ParseUint(rv, 10, 64); err != nil {
		return informer.Written{}, false
	}
	return informer.Written{ResourceVersion: rv}, false
}

// cachesOf is the Manager's informers that would hold the object a write
// answered: of its resource (any version), in its namespace, picked by their
// selectors (a field selector on anything but metadata.name and
// metadata.namespace cannot be told here: that informer is left out), and, for
// a sharded one, in this replica's share. With byKey the object is known by
// namespace and name alone (a delete's Status): every informer of the
// namespace may hold it. keeps says, for each, whether it holds the object for
// as long as it exists (no label selector: awaited.keeps).
func (m *Manager) cachesOf(w apiclient.WriteInfo, answer *apiclient.Object, byKey bool) (out []*informer.Informer, keeps []bool) {
	ns, name, labels := answer.Metadata.Namespace, answer.Metadata.Name, answer.Metadata.Labels
	if byKey {
		ns, name = w.Namespace, w.Name
	}
	res := w.Resource.String()
	m.mu.Lock()
	var candidates []managedInformer
	var sharded []bool
	for _, mi := range m.order {
		if mi.key.Resource == res && (mi.key.Namespace == "" || mi.key.Namespace == ns) {
			candidates = append(candidates, mi)
			sharded = append(sharded, m.sharded[mi.Informer])
		}
	}
	sharder := m.sharder
	m.mu.Unlock()
	for i, mi := range candidates {
		switch {
		case !mi.holds.fields(ns, name):
		case !byKey && !mi.holds.labels(labels):
		case !byKey && sharded[i] && !sharder.Owns(answer):
		default:
			out = append(out, mi.Informer)
			keeps = append(keeps, mi.key.LabelSelector == "")
		}
	}
	return out, keeps
}

// holds is an informer's selectors, parsed once, as cachesOf asks them.
type holds struct {
	labelSel  selector.Labels
	fieldSel  selector.Fields
	unmatched bool // a selector that cannot be matched here: the informer holds nothing we can tell
}

func newHolds(key InformerKey) holds {
	var h holds
	var err error
	if h.labelSel, err = selector.Parse(key.LabelSelector); err != nil {
		h.unmatched = true
	}
	if h.fieldSel, err = selector.ParseFields(key.FieldSelector); err != nil {
		h.unmatched = true
	}
	for _, t := range h.fieldSel.Terms() {
		if t.Field != "metadata.name" && t.Field != "metadata.namespace" {
			h.unmatched = true
		}
	}
	return h
}

func (h holds) labels(l map[string]string) bool { return !h.unmatched && h.labelSel.Matches(l) }

func (h holds) fields(ns, name string) bool {
	return !h.unmatched && h.fieldSel.Matches(map[string]string{"metadata.name": name, "metadata.namespace": ns})
}

// begin counts a write of res in flight; end, called once, ends it.
func (ws *writes) begin(res string) (end func()) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.inflight == nil {
		ws.inflight = map[string]map[uint64]chan struct{}{}
	}
	if ws.inflight[res] == nil {
		ws.inflight[res] = map[uint64]chan struct{}{}
	}
	ws.seq++
	seq, done := ws.seq, make(chan struct{})
	ws.inflight[res][seq] = done
	return func() {
		ws.mu.Lock()
		defer ws.mu.Unlock()
		delete(ws.inflight[res], seq)
		close(done)
	}
}

// show adds each of as to what its cache must show. A list that has doubled
// since its last sweep is swept: what the cache shows, or no longer needs to,
// is dropped.
func (ws *writes) show(as []*awaited) {
	var report []*awaited
	ws.mu.Lock()
	if ws.awaited == nil {
		ws.awaited = map[*informer.Informer]*awaitList{}
	}
	for _, a := range as {
		l := ws.awaited[a.cache]
		if l == nil {
			l = &awaitList{sweepAt: 64}
			ws.awaited[a.cache] = l
		}
		l.as = append(l.as, a)
		if len(l.as) >= l.sweepAt {
			l.as = over(l.as, ws.clock.Now(), &report)
			l.sweepAt = max(64, 2*len(l.as))
		}
	}
	ws.mu.Unlock()
	ws.gaveUp(report)
}

// ownWrites is inf's Options.OwnWrites: it waits, bounded by ctx, for the
// writes of res begun before the call, then returns what inf must still show
// of the writes over by then — asked again by the reader each time the store
// moves, and when the first of them is due to be given up on. Writes begun
// after the call are not waited for: a reader is never kept waiting by a
// stream of writes that began after it.
func (ws *writes) ownWrites(ctx context.Context, res string, inf *informer.Informer) (informer.Awaited, error) {
	ws.mu.Lock()
	pending := make([]chan struct{}, 0, len(ws.inflight[res]))
	for _, done := range ws.inflight[res] {
		pending = append(pending, done)
	}
	ws.mu.Unlock()
	for _, done := range pending {
		select {
		case <-done:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
	var report []*awaited
	ws.mu.Lock()
	var mine []*awaited
	if l := ws.awaited[inf]; l != nil {
		l.as = over(l.as, ws.clock.Now(), &report)
		mine = slices.Clone(l.as)
	}
	ws.mu.Unlock()
	ws.gaveUp(report)
	// Called by one reader at a time (its wait): mine is its own.
	return func() (informer.Written, time.Time) {
		var report []*awaited
		mine = over(mine, ws.clock.Now(), &report)
		ws.gaveUp(report)
		return pendingOf(mine)
	}, nil
}

// pendingOf is what as, still awaited, need the cache to show, and when the
// first of them is given up on (zero for none).
func pendingOf(as []*awaited) (pending informer.Written, until time.Time) {
	for _, a := range as {
		merge(&pending, a.shows)
		if at := a.at.Add(StaleWaitLimit); until.IsZero() || at.Before(until) {
			until = at
		}
	}
	return pending, until
}

// awaitedFor is the writes a cache has not shown for at least d, oldest first
// (each write once, however many caches await it), for /readyz.
func (ws *writes) awaitedFor(d time.Duration) []*write {
	now := ws.clock.Now()
	var report []*awaited
	var out []*write
	ws.mu.Lock()
	for _, l := range ws.awaited {
		l.as = over(l.as, now, &report)
		for _, a := range l.as {
			if now.Sub(a.at) >= d && !slices.Contains(out, a.write) {
				out = append(out, a.write)
			}
		}
	}
	ws.mu.Unlock()
	ws.gaveUp(report)
	slices.SortFunc(out, func(a, b *write) int { return a.at.Compare(b.at) })
	return out
}

// gaveUp reports each write given up on (Manager.gaveUp).
func (ws *writes) gaveUp(as []*awaited) {
	for _, a := range as {
		if ws.report != nil {
			ws.report(a)
		}
	}
}

// gaveUp is what the Manager does with a write no cache showed within
// StaleWaitLimit of its answer, once, whoever gave up on it (a guarded turn, a
// read, a sweep): it counts it and says which cache never showed what.
func (m *Manager) gaveUp(a *awaited) {
	if m.abandoned != nil {
		m.abandoned.With(a.controller, a.resource).Inc()
	}
	m.opts.Log.Warn("a cache never showed this process's own write; no longer waiting for it",
		"controller", a.controller, "request", a.request, "cache", a.cache.Name(), "at", a.cache.StoreResourceVersion(),
		"object", a.namespace+"/"+a.name, "wrote", a.shows.String(), "waited", StaleWaitLimit)
}
