package informer

import (
	"context"
	"fmt"
	"sort"
	"sync/atomic"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/fifo"
	"github.com/kubewire/kubewire/store"
)

// Reading the cache. Everything here reads the store, never the API server: cheap,
// and possibly a little behind the server.

// Get returns the cached object with this namespace and name ("" for a
// cluster-scoped object).
func (inf *Informer) Get(namespace, name string) (*apiclient.Object, bool) {
	if namespace == "" {
		return inf.store.GetByKey(name)
	}
	return inf.store.GetByKey(namespace + "/" + name)
}

// Name is the informer's name, from its Options.
func (inf *Informer) Name() string { return inf.name }

// List returns every cached object, sorted by key.
func (inf *Informer) List() []*apiclient.Object {
	objs := inf.store.List()
	sort.Slice(objs, func(i, j int) bool { return objs[i].Key() < objs[j].Key() })
	return objs
}

// ByIndex returns the cached objects whose index function gave value, e.g.
// ByIndex(store.NamespaceIndex, "default").
func (inf *Informer) ByIndex(index, value string) ([]*apiclient.Object, error) {
	return inf.store.ByIndex(index, value)
}

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

func (inf *Informer) tracef(format string, args ...any) {
	if inf.trace != nil {
		inf.trace(fmt.Sprintf(format, args...))
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
