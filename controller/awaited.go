package controller

import (
	"sync/atomic"
	"time"

	"github.com/kubewire/kubewire/controller/informer"
)

// An awaited write: one write of this process's client, accepted by the
// server, that one cache must show before a read of it (WaitForOwnWrites) or a
// guarded turn (staleguard.go) may go on. Both wait on the same records
// (Manager.wrote makes them), so a write is given up on once, whoever notices.
//
//	answered ─▶ awaiting ─┬─▶ shown       the cache stands at the answer's
//	                      │               version or later; a delete answered
//	                      │               with a Status: no object of its uid
//	                      ├─▶ superseded  the cache held the object since the
//	                      │               answer and holds it no more: it was
//	                      │               deleted after the write, so whatever
//	                      │               the versions say, the write is over
//	                      └─▶ given up    neither, StaleWaitLimit after the
//	                                      answer: counted, logged once, dropped
//
// Why superseded and given up: resourceVersions are opaque, and the cache's
// version is compared with the answer's as integers, which only a server that
// answers in the order it watches (etcd's kube-apiserver) makes true. A server
// or a proxy that answers a write with a version its watch never reaches
// would otherwise hold every later read and turn for good. A delete is the one
// later state of an object a cache can tell from an earlier one without
// trusting the answer's version — a uid, once deleted, never comes back;
// another writer's later update cannot be told from an earlier one, and is
// left to the bound.

// write is one accepted write of one object, shared by the awaited records of
// the caches that would hold it.
type write struct {
	resource        string // as apiclient.Resource.String names it
	namespace, name string
	uid             string           // the object's, from the answer; "" when it had none
	shows           informer.Written // a version, or the object gone (a delete's Status)
	at              time.Time        // when the answer came
	controller      string           // whose reconcile made it; "" for none
	request         string           // the Request that reconcile was of; "" for none
	gaveUp          atomic.Bool      // reported: counted and logged, once
}

// awaited is one write as one cache must show it. seen is written by
// whoever checks it, under their own lock: it only ever goes from false to
// true.
type awaited struct {
	*write
	cache *informer.Informer
	// keeps is whether the cache holds the object for as long as it exists:
	// no label selector (a field selector here is on metadata.name or
	// metadata.namespace, which never change). Only then does its leaving the
	// cache mean it was deleted.
	keeps bool
	seen  atomic.Bool // the cache has held an object of uid since the answer
}

// awaitState is where an awaited write stands, at one look.
type awaitState int

const (
	awaiting   awaitState = iota
	shown                 // the cache shows the write
	superseded            // the object was deleted since: the write is over
	givenUp               // StaleWaitLimit after the answer, neither
)

// newAwaited is w as cache must show it; keeps as awaited.keeps says.
func newAwaited(w *write, cache *informer.Informer, keeps bool) *awaited {
	a := &awaited{write: w, cache: cache, keeps: keeps}
	a.look()
	return a
}

// state is where a stands at now. It costs a version comparison and, for a
// write not shown yet, a uid read from the cache.
func (a *awaited) state(now time.Time) awaitState {
	if a.cache.Shows(a.shows) {
		return shown
	}
	if !a.look() && a.seen.Load() {
		return superseded
	}
	if now.Sub(a.at) >= StaleWaitLimit {
		return givenUp
	}
	return awaiting
}

// look notes whether the cache holds the object written now, and reports it;
// false too for an object whose leaving the cache would tell nothing (no uid,
// a cache that does not keep it).
func (a *awaited) look() bool {
	if a.uid == "" || !a.keeps {
		return false
	}
	uid, ok := a.cache.UIDOf(a.namespace, a.name)
	if ok && uid == a.uid {
		a.seen.Store(true)
		return true
	}
	return false
}

// over drops from as the records over at now, and hands those given up on to
// report (once per write, whoever gives it up first, and after the caller's
// locks: report logs). It returns what is left, in as's array.
func over(as []*awaited, now time.Time, report *[]*awaited) []*awaited {
	kept := as[:0]
	for _, a := range as {
		switch a.state(now) {
		case awaiting:
			kept = append(kept, a)
		case givenUp:
			if a.gaveUp.CompareAndSwap(false, true) {
				*report = append(*report, a)
			}
		}
	}
	clear(as[len(kept):])
	return kept
}
