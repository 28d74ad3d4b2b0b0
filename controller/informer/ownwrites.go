package informer

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/kubewire/kubewire/apiclient/clock"
)

// Reading your own writes. A controller that has just written an object and
// reads the cache may not find its write there yet: the write's watch event is
// on its way. The moves here let it ask, or wait:
//
//	Observed(rv)          has the cache applied every change up to rv?
//	Shows(w)              does the cache show these writes (a version reached,
//	                      deleted objects gone)?
//	WaitForOwnWrites(ctx) wait until it shows every write this process made to
//	                      the informer's objects before the call
//
// Versions are compared as integers, which etcd's are; a server whose versions
// are opaque strings cannot be compared, and then nothing waits for a version.

// Written is what a process wrote to the objects of one informer, as the cache
// must show it: the newest version a write was answered with, and the objects
// whose delete was answered without one. The zero value is nothing written.
type Written struct {
	// ResourceVersion is the newest resourceVersion a write was answered with
	// ("" for none): the cache shows the writes once it stands there or later.
	ResourceVersion string
	// Deleted are objects whose delete the server answered with a Status, which
	// carries no resourceVersion (kube-apiserver does so for most resources;
	// pods are answered with the object, at the version of its deletion).
	Deleted []Deleted
}

// Deleted names a deleted object by namespace, name and uid: the cache shows
// its delete once it holds no object of that uid there (another of the same
// name is a new object).
type Deleted struct{ Namespace, Name, UID string }

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

// Shows reports whether the cache shows w: it has observed w.ResourceVersion
// (a version that cannot be compared counts as shown: nothing could wait for
// it) and holds none of w.Deleted.
func (inf *Informer) Shows(w Written) bool {
	if w.ResourceVersion != "" {
		if seen, comparable := inf.Observed(w.ResourceVersion); comparable && !seen {
			return false
		}
	}
	for _, d := range w.Deleted {
		if uid, ok := inf.UIDOf(d.Namespace, d.Name); ok && uid == d.UID {
			return false
		}
	}
	return true
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

// Awaited says what of this process's writes a cache must still show: the
// writes it does not show yet (the zero Written: none left), and until when at
// most, even if the store does not move meanwhile — the time the first of them
// will no longer be awaited (zero: no such time). WaitForOwnWrites asks it
// again each time the store moves, and at that time; it may drop writes the
// cache will never show (controller.StaleWaitLimit says which).
type Awaited func() (pending Written, until time.Time)

// WaitForOwnWrites blocks until the cache shows every write of its objects
// that this process began before the call and the server accepted —
// read-your-own-writes — or until ctx is done, which is an error that says
// what it waited for. Options.OwnWrites says which writes those are (the
// Manager's client tells it), and which of them are no longer awaited; an
// informer without it knows of none and returns at once.
//
// It waits for writes still in flight to be answered, then for the store to
// show them: at worst a few milliseconds on a healthy watch. A write of an
// object this cache would not hold (one its label selector does not match) is
// not waited for.
func (inf *Informer) WaitForOwnWrites(ctx context.Context) error {
	if inf.ownWrites == nil {
		return nil
	}
	awaited, err := inf.ownWrites(ctx)
	if err != nil {
		return fmt.Errorf("informer %s: waiting for this process's writes to be answered: %w", inf.name, err)
	}
	var w Written
	shows := func() (bool, time.Time) {
		var until time.Time
		w, until = awaited()
		return inf.Shows(w), until
	}
	if !inf.waitUntil(ctx, shows) {
		return fmt.Errorf("informer %s: the cache, at resourceVersion %q, does not show this process's own writes yet (%s): %w",
			inf.name, inf.StoreResourceVersion(), w, context.Cause(ctx))
	}
	return nil
}

// WaitForOwnWrites is the informer's (Informer.WaitForOwnWrites): call it
// before a read that must show this process's own writes.
func (l *Lister[T]) WaitForOwnWrites(ctx context.Context) error { return l.inf.WaitForOwnWrites(ctx) }

// String says what w waits for, for errors and logs: "rv 15", "rv 15, 2
// deleted objects gone".
func (w Written) String() string {
	s := "nothing"
	if w.ResourceVersion != "" {
		s = "rv " + w.ResourceVersion
	}
	if n := len(w.Deleted); n > 0 {
		gone := fmt.Sprintf("%d deleted objects gone", n)
		if n == 1 {
			gone = clock.ObjectKey(w.Deleted[0].Namespace, w.Deleted[0].Name) + " gone"
		}
		if w.ResourceVersion == "" {
			return gone
		}
		s += ", " + gone
	}
	return s
}
