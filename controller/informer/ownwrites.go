package informer

import (
	"context"
	"fmt"
	"strconv"
)

// Reading your own writes. A controller that has just written an object and
// reads the cache may not find its write there yet: the write's watch event is
// on its way. The two moves here let it know, or wait:
//
//	Observed(rv)          has the cache applied every change up to rv?
//	WaitForOwnWrites(ctx) wait until it has applied every write this process
//	                      made to the informer's objects before the call
//
// Both compare resourceVersions as integers, which etcd's are; a server whose
// versions are opaque strings cannot be compared, and then nothing waits.

// Observed reports whether the cache has applied every change up to
// resourceVersion rv: StoreResourceVersion is rv or later. comparable is false
// when rv, or the store's version, is not an integer, so that whether one is
// later cannot be told (resourceVersions are opaque to clients; only etcd's are
// known to be increasing integers): a caller must then not wait on it. Before
// the first list is in, the cache has observed nothing (false, true).
func (inf *Informer) Observed(rv string) (observed, comparable bool) {
	want, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		return false, false
	}
	have := inf.StoreResourceVersion()
	if have == "" {
		return false, true
	}
	h, err := strconv.ParseUint(have, 10, 64)
	if err != nil {
		return false, false
	}
	return h >= want, true
}

// UIDOf is the uid of the cached object with this namespace and name, without
// a copy of it; false when the cache holds none.
func (inf *Informer) UIDOf(namespace, name string) (string, bool) {
	o, ok := inf.store.GetByKey(key(namespace, name))
	if !ok {
		return "", false
	}
	return o.Metadata.UID, true
}

// WaitForOwnWrites blocks until the cache has observed every write of its
// objects that this process began before the call and the server accepted —
// read-your-own-writes — or until ctx is done, which is an error that says
// what it waited for. Options.OwnWrites says which writes those are (the
// Manager's client counts them); an informer without it knows of none and
// returns at once, as it does on a server whose resourceVersions are not
// integers.
//
// It waits for writes still in flight to be answered, then for the store to
// reach the newest version they were answered with: at worst a few
// milliseconds on a healthy watch. A write of an object this cache does not
// hold (a label selector that does not match it) is not waited for.
func (inf *Informer) WaitForOwnWrites(ctx context.Context) error {
	if inf.ownWrites == nil {
		return nil
	}
	rv, err := inf.ownWrites(ctx)
	if err != nil {
		return fmt.Errorf("informer %s: waiting for this process's writes to be answered: %w", inf.name, err)
	}
	if rv == "" {
		return nil
	}
	if _, comparable := inf.Observed(rv); !comparable {
		return nil
	}
	if !inf.WaitForStoreVersion(ctx, rv) {
		return fmt.Errorf("informer %s: the cache stands at resourceVersion %q, short of %s, this process's own write: %w",
			inf.name, inf.StoreResourceVersion(), rv, context.Cause(ctx))
	}
	return nil
}

// WaitForOwnWrites is the informer's (Informer.WaitForOwnWrites): call it
// before a read that must show this process's own writes.
func (l *Lister[T]) WaitForOwnWrites(ctx context.Context) error { return l.inf.WaitForOwnWrites(ctx) }
