package fifo

import (
	"context"
	"fmt"
	"slices"
)

// InOrderFIFO queues every delta on its own, in the order it was written, with no
// grouping by key: Pop hands out one delta at a time, exactly as the watch delivered
// them. It is client-go's RealFIFO, which informers use by default since 1.33. See the
// package doc for what that changes for a controller.
//
// The zero value is not usable: build one with NewInOrderFIFO. All methods are safe
// for concurrent use.
type InOrderFIFO[T any] struct {
	base[T]            // the key, the store, and mu, which guards everything below
	items   []Delta[T] // in pop order
}

// NewInOrderFIFO returns an empty InOrderFIFO that keys objects with key and consults
// known, the store the popped deltas are applied to, in Replace and Resync. known may
// be nil (nothing known but the queue; Resync does nothing). It panics if key is nil.
func NewInOrderFIFO[T any](key KeyFunc[T], known KnownObjects[T]) *InOrderFIFO[T] {
	if key == nil {
		panic("fifo.NewInOrderFIFO: nil key function")
	}
	f := &InOrderFIFO[T]{base: base[T]{key: key, known: known}}
	f.init()
	return f
}

// Add queues an Added delta for obj. Cost: one key function call, amortised O(1).
func (f *InOrderFIFO[T]) Add(obj T) error { return f.write(f, Added, obj) }

// Update queues an Updated delta for obj.
func (f *InOrderFIFO[T]) Update(obj T) error { return f.write(f, Updated, obj) }

// Delete queues a Deleted delta for obj, always: unlike DeltaFIFO it neither drops a
// delete for an unknown key nor merges two deletes, since every event is its own entry.
func (f *InOrderFIFO[T]) Delete(obj T) error { return f.write(f, Deleted, obj) }

// Replace is what a LIST means: list is everything that exists now. It queues, in
// this order,
//
//  1. for each key queued but not named by list whose newest queued delta is not a
//     Deleted, in the order the keys first appear in the queue, a Deleted delta with a
//     tombstone whose Obj is that newest delta's object;
//  2. for each key known to the store that list does not name and that does not appear
//     in the queue at all, in sorted key order, a Deleted delta with a tombstone whose
//     Obj is the stored object;
//  3. a Replaced delta for each object of list, in list order.
//
// The deletions come first because they happened first: the objects were deleted
// before the LIST was served. resourceVersion is not used by the queue. All keys are
// computed before anything is queued, so a key function error leaves the queue
// unchanged. Cost: O(len(list) + queued) plus O(k log k) for the k missing stored keys.
func (f *InOrderFIFO[T]) Replace(list []T, resourceVersion string) error {
	return f.replace(f, list, func(keys []string, listed map[string]struct{}) {
		for _, d := range f.deletionsLocked(listed) {
			f.appendLocked(d)
		}
		for i, obj := range list {
			f.appendLocked(Delta[T]{Type: Replaced, Key: keys[i], Object: obj})
		}
	})
}

// deletionsLocked is steps 1 and 2 of Replace: the tombstones for what the list
// does not name, queued keys first, then stored ones.
func (f *InOrderFIFO[T]) deletionsLocked(listed map[string]struct{}) []Delta[T] {
	// The newest queued delta of each queued key, and the keys in first-seen order.
	newest := make(map[string]int)
	var order []string
	for i, d := range f.items {
		if d.Type == Bookmark {
			continue
		}
		if _, seen := newest[d.Key]; !seen {
			order = append(order, d.Key)
		}
		newest[d.Key] = i
	}
	var deletes []Delta[T]
	for _, key := range order {
		last := f.items[newest[key]]
		if _, ok := listed[key]; !ok && last.Type != Deleted {
			deletes = append(deletes, tombstone(key, last.Object))
		}
	}
	if f.known != nil {
		var missing []string
		for _, key := range f.known.ListKeys() {
			_, isListed := listed[key]
			_, queued := newest[key]
			if !isListed && !queued {
				missing = append(missing, key)
			}
		}
		slices.Sort(missing)
		for _, key := range missing {
			if obj, ok := f.known.GetByKey(key); ok {
				deletes = append(deletes, tombstone(key, obj))
			}
		}
	}
	return deletes
}

// Bookmark queues a Bookmark delta: when it is popped, everything written before
// it has been popped too, so whoever applies the deltas to a store knows the store
// stands at resourceVersion. The informer calls it for every watch BOOKMARK and after
// every Replace (client-go's RealFIFO queues the same, for the same reason). Cost:
// amortised O(1).
func (f *InOrderFIFO[T]) Bookmark(resourceVersion string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return ErrClosed
	}
	f.appendLocked(Delta[T]{Type: Bookmark, ResourceVersion: resourceVersion})
	return nil
}

// Resync queues a Sync delta, with the stored object, for every key known to the store
// that does not appear in the queue, in sorted key order. A queued key is skipped
// because what is queued for it is newer than the store. With no known objects Resync
// does nothing. Cost: O(queued + n log n) for n stored keys.
func (f *InOrderFIFO[T]) Resync() error { return f.resync(f) }

// queuedLocked reports whether key has an entry queued, from a set of the queued
// keys built once per call: O(queued).
func (f *InOrderFIFO[T]) queuedLocked() func(key string) bool {
	queued := make(map[string]struct{}, len(f.items))
	for _, d := range f.items {
		queued[d.Key] = struct{}{}
	}
	return func(key string) bool { _, ok := queued[key]; return ok }
}

// Pop waits until a delta is queued, takes the first one off the queue, and calls
// process with it (a Deltas of length one). It returns ctx.Err() as soon as ctx is done,
// and ErrClosed once the queue is closed and empty. process runs under the queue's lock
// and a failed delta is not queued again, for the reasons given at DeltaFIFO.Pop.
func (f *InOrderFIFO[T]) Pop(ctx context.Context, process ProcessFunc[T]) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.waitLocked(ctx, f); err != nil {
		return err
	}
	d := f.items[0]
	f.items[0] = Delta[T]{} // the array outlives the pop; don't let it pin the object
	f.items = f.items[1:]
	if len(f.items) == 0 {
		f.items = nil // an emptied queue lets go of the array a burst grew
	}
	f.depth.Store(int64(len(f.items)))
	initial := f.sync.popped()
	if err := process(Deltas[T]{d}, initial); err != nil {
		return fmt.Errorf("fifo: process %s: %w", d.Key, err)
	}
	return nil
}

// Len returns the number of deltas waiting. It does not wait for a Pop in
// progress (base.depth).
func (f *InOrderFIFO[T]) Len() int { return int(f.depth.Load()) }

func (f *InOrderFIFO[T]) appendLocked(d Delta[T]) {
	f.items = append(f.items, d)
	f.depth.Store(int64(len(f.items)))
	f.cond.Signal() // one more delta: one waiting Pop can have it
}

func (f *InOrderFIFO[T]) lenLocked() int { return len(f.items) }
