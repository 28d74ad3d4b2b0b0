package informer

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"sync/atomic"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/controller/trace"
	"github.com/kubewire/kubewire/fifo"
	"github.com/kubewire/kubewire/store"
)

// Reading the cache. Everything here reads the store, never the API server: cheap,
// and possibly a little behind the server. What is returned is a Copy of each
// cached object (apiclient.Object.Copy: new metadata, the server's bytes shared,
// which nothing modifies): a caller may change it, and the cache does not see
// the change. Handlers are given copies too (handler.go).

// Get returns a copy of the cached object with this namespace and name ("" for
// a cluster-scoped object). When there is none, the error is a NotFound
// (apiclient.IsNotFound), as Lister.Get's and the server's: one shape for
// "get from the cache" and "get from the server", so that a Reconciler
// handles a deleted object the same way whichever it reads (controller-
// runtime's client.Get answers the same way from its cache).
func (inf *Informer) Get(namespace, name string) (*apiclient.Object, error) {
	o, ok := inf.store.GetByKey(key(namespace, name))
	if !ok {
		return nil, inf.notFound(namespace, name)
	}
	return o.Copy(), nil
}

// notFound is the NotFound of a key the cache does not hold.
func (inf *Informer) notFound(namespace, name string) error {
	return &apiclient.StatusError{Verb: "GET", URL: "cache of " + inf.Name(), Status: apiclient.Status{
		Status: "Failure", Reason: "NotFound", Code: http.StatusNotFound,
		Message: fmt.Sprintf("%s %q not found in the cache", inf.Name(), key(namespace, name))}}
}

// Name is the informer's name, from its Options.
func (inf *Informer) Name() string { return inf.name }

// List returns a copy of every cached object, sorted by key.
func (inf *Informer) List() []*apiclient.Object { return copies(inf.sorted()) }

// ByIndex returns copies of the cached objects whose index function gave value,
// e.g. ByIndex(store.NamespaceIndex, "default").
func (inf *Informer) ByIndex(index, value string) ([]*apiclient.Object, error) {
	objs, err := inf.store.ByIndex(index, value)
	return copies(objs), err
}

// IndexKeys returns the keys ("namespace/name") of the cached objects whose
// index function gave value: what ByIndex would return, without the copies.
func (inf *Informer) IndexKeys(index, value string) ([]string, error) {
	return inf.store.IndexKeys(index, value)
}

// AddIndexers adds indexes to the cache, before or after Run: the objects
// already cached are indexed at once (store.AddIndexers). A name already taken
// is an error, and nothing is added: two callers that want one index by one
// name must agree on who adds it.
func (inf *Informer) AddIndexers(indexers store.Indexers[*apiclient.Object]) error {
	if err := inf.store.AddIndexers(indexers); err != nil {
		return fmt.Errorf("informer %s: %w", inf.name, err)
	}
	return nil
}

// sorted is the store's own objects, sorted by key: for the readers here,
// which copy them, and for the Lister, which decodes them.
func (inf *Informer) sorted() []*apiclient.Object {
	objs := inf.store.List()
	sort.Slice(objs, func(i, j int) bool { return objs[i].Key() < objs[j].Key() })
	return objs
}

// copies returns a Copy of each object.
func copies(objs []*apiclient.Object) []*apiclient.Object {
	out := make([]*apiclient.Object, len(objs))
	for i, o := range objs {
		out[i] = o.Copy()
	}
	return out
}

// key is the store's key of namespace and name.
func key(namespace, name string) string { return clock.ObjectKey(namespace, name) }

// IndexSizes returns each of the store's indexes (store.NamespaceIndex, and
// Options.Indexers) with how many values objects are filed under.
func (inf *Informer) IndexSizes() []store.IndexSize { return inf.store.IndexSizes() }

// Len is the number of cached objects.
func (inf *Informer) Len() int { return inf.store.Len() }

// FIFOLen is the number of entries waiting in the FIFO.
func (inf *Informer) FIFOLen() int { return inf.fifo.Len() }

// HasSynced reports whether the initial list is in the cache and every handler
// registered so far has been given all of it (doc.go, "Synced and resync").
func (inf *Informer) HasSynced() bool {
	if !closed(inf.cacheSynced) {
		return false
	}
	inf.mu.Lock()
	defer inf.mu.Unlock()
	for _, l := range inf.listeners {
		if !l.HasSynced() {
			return false
		}
	}
	return true
}

// Listed is closed once the initial list is in the cache, whatever its handlers
// have been given: what a reader of the cache (a Lister) waits for, where
// WaitForCacheSync is what a handler's owner waits for.
func (inf *Informer) Listed() <-chan struct{} { return inf.cacheSynced }

// WaitForCacheSync blocks until HasSynced, or until ctx is done (false). It waits
// on channels, never polls.
func (inf *Informer) WaitForCacheSync(ctx context.Context) bool {
	select {
	case <-inf.cacheSynced:
	case <-ctx.Done():
		return false
	}
	inf.mu.Lock()
	listeners := append([]*listener(nil), inf.listeners...)
	inf.mu.Unlock()
	for _, l := range listeners {
		select {
		case <-l.synced:
		case <-ctx.Done():
			return false
		}
	}
	return true
}

// HandlerState is where one registered handler stands.
type HandlerState struct {
	Name    string // the name given to AddHandler
	Backlog int    // notifications waiting for it
	Busy    bool   // it is handling one now
	Handled uint64 // notifications it has returned from
}

// Handlers returns where each handler stands, in registration order: what
// /metrics (the slowest backlog) and the live page show. It costs a lock per
// handler.
func (inf *Informer) Handlers() []HandlerState {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	out := make([]HandlerState, len(inf.listeners))
	for i, l := range inf.listeners {
		out[i] = l.state()
	}
	return out
}

// eventCounts counts the deltas the informer applied, by type, for /metrics.
type eventCounts struct {
	byType [6]atomic.Uint64 // indexed by fifo.DeltaType
}

func (e *eventCounts) count(t fifo.DeltaType) {
	if int(t) < len(e.byType) {
		e.byType[t].Add(1)
	}
}

// Events returns how many deltas of each type the informer has applied.
func (inf *Informer) Events() map[string]uint64 {
	out := map[string]uint64{}
	for _, t := range []fifo.DeltaType{fifo.Added, fifo.Updated, fifo.Deleted, fifo.Replaced, fifo.Sync} {
		out[t.String()] = inf.events.byType[t].Load()
	}
	return out
}

// emit hands e, named after this informer, to the trace, if there is one.
func (inf *Informer) emit(e trace.Event) {
	if inf.trace != nil {
		e.Informer = inf.name
		inf.trace(e)
	}
}

// closed reports whether ch is closed, without waiting.
func closed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func kindName(k notificationKind) string {
	return [...]string{"add", "update", "delete", "synced"}[k]
}
