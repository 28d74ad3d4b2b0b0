package controller

import (
	"context"
	"slices"
	"strconv"
	"sync"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/selector"
	"github.com/kubewire/kubewire/controller/informer"
)

// What the Manager makes of its client's writes (apiclient.Client.OnWrite,
// which NewManager sets to onWrite). Each write of one object the server
// accepts tells what the caches that would hold the object must show of it —
// the version it was answered with, or, for a delete answered with a Status,
// the object gone — to two readers:
//
//   - the staleness guard of the controller whose reconcile made the write,
//     when it was made with the reconcile's context (staleguard.go);
//   - read-your-own-writes reads (informer.WaitForOwnWrites): the Manager
//     gives each informer it builds Options.OwnWrites, which waits for the
//     writes of its resource still in flight and returns what the informer
//     must show of every write over.
//
// A write whose answer carries a version that is not an integer (a server
// whose versions are opaque) tells nothing: there is no order to wait in. A
// delete answered with a Status is still waited for by uid, which needs none.

// writes is the Manager's record of its client's writes. Safe for concurrent
// use.
type writes struct {
	mu       sync.Mutex
	seq      uint64
	inflight map[string]map[uint64]chan struct{}      // resource → writes begun, not over
	shown    map[*informer.Informer]*informer.Written // what each cache must show
}

// onWrite is the client's OnWrite: it counts the write in flight, and once it
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
// and, when a reconcile made it, to that controller's guard.
func (m *Manager) wrote(ctx context.Context, w apiclient.WriteInfo, answer *apiclient.Object) {
	shown, byKey := writtenBy(w, answer)
	if shown.ResourceVersion == "" && len(shown.Deleted) == 0 {
		return
	}
	caches := m.cachesOf(w, answer, byKey)
	m.writes.show(caches, shown)
	if r := reconcilingOf(ctx); r != nil {
		r.guard.wrote(r.req, r.uid, caches, shown)
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
// namespace may hold it.
func (m *Manager) cachesOf(w apiclient.WriteInfo, answer *apiclient.Object, byKey bool) []*informer.Informer {
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
	var out []*informer.Informer
	for i, mi := range candidates {
		switch {
		case !mi.holds.fields(ns, name):
		case !byKey && !mi.holds.labels(labels):
		case !byKey && sharded[i] && !sharder.Owns(answer):
		default:
			out = append(out, mi.Informer)
		}
	}
	return out
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

// show adds w to what each of caches must show.
func (ws *writes) show(caches []*informer.Informer, w informer.Written) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.shown == nil {
		ws.shown = map[*informer.Informer]*informer.Written{}
	}
	for _, inf := range caches {
		have := ws.shown[inf]
		if have == nil {
			have = &informer.Written{}
			ws.shown[inf] = have
		}
		merge(have, w)
		if len(have.Deleted) > 16 { // keep only the deletes the cache does not show yet
			have.Deleted = slices.DeleteFunc(have.Deleted, func(d informer.Deleted) bool {
				return inf.Shows(informer.Written{Deleted: []informer.Deleted{d}})
			})
		}
	}
}

// ownWrites is inf's Options.OwnWrites: it waits, bounded by ctx, for the
// writes of res begun before the call, then says what inf must show of every
// write over. That may include writes begun after the call and over since: a
// read waits a little longer, never less.
func (ws *writes) ownWrites(ctx context.Context, res string, inf *informer.Informer) (informer.Written, error) {
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
			return informer.Written{}, context.Cause(ctx)
		}
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	have := ws.shown[inf]
	if have == nil {
		return informer.Written{}, nil
	}
	return informer.Written{ResourceVersion: have.ResourceVersion, Deleted: slices.Clone(have.Deleted)}, nil
}
