package fifo

import (
	"context"
	"fmt"
	"slices"
)

// DeltaFIFO queues keys, and under each key the deltas that happened to it since it
// was queued. A key keeps its place in the queue however many deltas it collects, and
// Pop hands out all of them at once, oldest first. See the package doc for the
// semantics of each write and a worked Replace.
//
// The zero value is not usable: build one with NewDeltaFIFO. All methods are safe for
// concurrent use.
type DeltaFIFO[T any] struct {
	base[T]                      // the key, the store, and mu, which guards everything below
	items   map[string]Deltas[T] // key → its deltas; never an empty Deltas
	queue   []string             // keys in pop order; exactly the keys of items
	peak    int                  // the longest queue since it was last empty
}

// NewDeltaFIFO returns an empty DeltaFIFO that keys objects with key and consults known,
// the store the popped deltas are applied to, in Replace, Delete and Resync. known may
// be nil (nothing known but the queue; Resync does nothing). It panics if key is nil.
func NewDeltaFIFO[T any](key KeyFunc[T], known KnownObjects[T]) *DeltaFIFO[T] {
	if key == nil {
		panic("fifo.NewDeltaFIFO: nil key function")
	}
	f := &DeltaFIFO[T]{base: base[T]{key: key, known: known}, items: make(map[string]Deltas[T])}
	f.init()
	return f
}

// Add queues an Added delta for obj. Cost: one key function call, amortised O(1).
func (f *DeltaFIFO[T]) Add(obj T) error { return f.write(f, Added, obj) }

// Update queues an Updated delta for obj.
func (f *DeltaFIFO[T]) Update(obj T) error { return f.write(f, Updated, obj) }

// Delete queues a Deleted delta for obj, unless obj's key is neither queued nor known
// to the store: then there is nothing to delete (a relist already reported the
// deletion, say) and Delete does nothing. If the key's newest delta is already a
// Deleted, the two collapse into one: see the package doc.
func (f *DeltaFIFO[T]) Delete(obj T) error {
	key, err := f.key(obj)
	if err != nil {
		return fmt.Errorf("fifo: delete: key: %w", err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return ErrClosed
	}
	if _, queued := f.items[key]; !queued && !f.knownLocked(key) {
		return nil
	}
	f.appendLocked(Delta[T]{Type: Deleted, Key: key, Object: obj})
	return nil
}

// Replace is what a LIST means: list is everything that exists now. It queues, in
// this order,
//
//  1. a Replaced delta for each object of list, in list order;
//  2. for each queued key that list does not name, in queue order, a Deleted delta
//     with a tombstone whose Obj is the object of the key's newest delta (if that
//     delta is already a Deleted, the tombstone collapses into it);
//  3. for each key known to the store that list does not name and that is not queued,
//     in sorted key order, a Deleted delta with a tombstone whose Obj is the stored
//     object.
//
// resourceVersion is not used by the queue. All keys are computed before anything is
// queued, so a key function error leaves the queue unchanged. Cost: O(len(list)) plus
// O(k log k) to sort the k keys missing from the store.
func (f *DeltaFIFO[T]) Replace(list []T, resourceVersion string) error {
	return f.replace(f, list, func(keys []string, listed map[string]struct{}) {
		for i, obj := range list {
			f.appendLocked(Delta[T]{Type: Replaced, Key: keys[i], Object: obj})
		}
		// Queued but not listed. f.queue does not change in this loop: every key
		// in it is already queued, so appendLocked only adds deltas under it.
		for _, key := range f.queue {
			if _, ok := listed[key]; !ok {
				f.appendLocked(tombstone(key, f.items[key].Newest().Object))
			}
		}
		// Known but neither listed nor queued: deleted while we were not watching.
		for _, key := range f.missingKnownLocked(listed) {
			if obj, ok := f.known.GetByKey(key); ok {
				f.appendLocked(tombstone(key, obj))
			}
		}
	})
}

// Resync queues a Sync delta, with the stored object, for every key known to the store
// that is not queued, in sorted key order. A queued key is skipped because its queued
// deltas are newer than the store, and a Sync carrying the stored object would undo
// them. With no known objects Resync does nothing. Cost: O(n log n) for n stored keys.
func (f *DeltaFIFO[T]) Resync() error { return f.resync(f) }

// queuedLocked reports whether key is queued: it has an entry in items.
func (f *DeltaFIFO[T]) queuedLocked() func(key string) bool {
	return func(key string) bool { _, ok := f.items[key]; return ok }
}

// Pop waits until a key is queued, takes the first key off the queue with all its
// deltas, and calls process with them. It returns ctx.Err() as soon as ctx is done, and
// ErrClosed once the queue is closed and empty.
//
// process runs while Pop holds the queue's lock, so no write lands in between taking
// the deltas and applying them to the store. Without that, a Replace could run after
// an object was popped but before it reached the store, find it neither queued nor
// known, and never report its deletion. (client-go's DeltaFIFO does the same.)
//
// If process fails, Pop returns its error wrapped with the key, and the deltas are not
// queued again: they are the caller's once process has them. A retry here would put
// old deltas behind newer ones for other keys, and an index function that fails once
// fails every time, so the key would come back forever. The informer should log the
// error and carry on: the next watch event for the key, or the next relist, brings the
// store back in step.
func (f *DeltaFIFO[T]) Pop(ctx context.Context, process ProcessFunc[T]) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.waitLocked(ctx, f); err != nil {
		return err
	}
	key := f.queue[0]
	f.queue[0] = "" // let the string go with the item, not with the array
	f.queue = f.queue[1:]
	f.depth.Store(int64(len(f.queue)))
	deltas := f.items[key]
	delete(f.items, key)
	if len(f.queue) == 0 {
		f.shrinkLocked()
	}
	initial := f.sync.popped()
	if err := process(deltas, initial); err != nil {
		return fmt.Errorf("fifo: process %s: %w", key, err)
	}
	return nil
}

// shrinkLocked lets go of the memory a burst left behind once the queue is empty.
// A Go map never shrinks and a slice popped from the front keeps its array, so
// after the first LIST of 10,000 objects an idle queue would go on holding about
// 100 bytes per object — 1 MB for nothing, or 3% of a pod cache.
func (f *DeltaFIFO[T]) shrinkLocked() {
	f.queue = nil
	if f.peak > 1024 {
		f.items = make(map[string]Deltas[T])
	}
	f.peak = 0
}

// Len returns the number of keys waiting. It does not wait for a Pop in
// progress (base.depth).
func (f *DeltaFIFO[T]) Len() int { return int(f.depth.Load()) }

// appendLocked adds d under its key, queuing the key if it is new. It is the only
// place deltas are added, so it is where two deletes in a row collapse: the pair keeps
// the one that is not a tombstone, since it carries the object's real final state (if
// both are, or neither is, it keeps the newer; client-go keeps the older of two watch
// deletes, see the package doc).
func (f *DeltaFIFO[T]) appendLocked(d Delta[T]) {
	deltas, queued := f.items[d.Key]
	if n := len(deltas); n > 0 && d.Type == Deleted && deltas[n-1].Type == Deleted {
		if d.Tombstone == nil || deltas[n-1].Tombstone != nil {
			deltas[n-1] = d
		}
		return
	}
	if !queued {
		f.queue = append(f.queue, d.Key)
		f.depth.Store(int64(len(f.queue)))
		f.peak = max(f.peak, len(f.queue))
		f.cond.Signal() // one more key: one waiting Pop can have it
	}
	f.items[d.Key] = append(deltas, d)
}

// knownLocked reports whether the store holds key.
func (f *DeltaFIFO[T]) knownLocked(key string) bool {
	if f.known == nil {
		return false
	}
	_, ok := f.known.GetByKey(key)
	return ok
}

// missingKnownLocked returns, sorted, the keys the store holds that are neither in
// listed nor queued.
func (f *DeltaFIFO[T]) missingKnownLocked(listed map[string]struct{}) []string {
	if f.known == nil {
		return nil
	}
	var missing []string
	for _, key := range f.known.ListKeys() {
		_, isListed := listed[key]
		_, queued := f.items[key]
		if !isListed && !queued {
			missing = append(missing, key)
		}
	}
	slices.Sort(missing)
	return missing
}

func (f *DeltaFIFO[T]) lenLocked() int { return len(f.queue) }

// tombstone makes the Deleted delta Replace queues for a key that disappeared.
func tombstone[T any](key string, last T) Delta[T] {
	return Delta[T]{
		Type:      Deleted,
		Key:       key,
		Object:    last,
		Tombstone: &DeletedFinalStateUnknown[T]{Key: key, Obj: last},
	}
}
