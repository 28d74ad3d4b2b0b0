package fifo

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
)

// The machinery both FIFOs share: how an object is keyed, how a write and a
// Replace get under the lock, how Pop waits, how HasSynced counts, and Close.

// syncState is the bookkeeping behind HasSynced, the same in both FIFOs: the first
// Replace records how many items it left queued, and every Pop counts one down.
// Items queued after that Replace sit behind those items (both FIFOs only ever append),
// so when the count reaches zero every item of the first Replace has been popped.
type syncState struct {
	replaced bool // the first Replace has happened
	pending  int  // items queued by then that are still waiting
}

func (s *syncState) synced() bool { return s.replaced && s.pending == 0 }

// firstReplaceDone is called at the end of every Replace (base.replace) with the
// queue length.
func (s *syncState) firstReplaceDone(queued int) {
	if !s.replaced {
		s.replaced, s.pending = true, queued
	}
}

// popped is called for every item Pop takes; it returns whether that item was still
// part of the initial sync.
func (s *syncState) popped() (initial bool) {
	initial = !s.synced()
	if s.pending > 0 {
		s.pending--
	}
	return initial
}

// base is the part of a FIFO both FIFOs share: the key function, the store the
// queue consults, the lock, the condition Pop waits on, the closed flag and the
// sync count. Its exported methods are the FIFOs'. The zero base is not ready:
// call init once.
type base[T any] struct {
	key   KeyFunc[T]
	known KnownObjects[T] // may be nil: then nothing is known beyond the queue

	mu     sync.Mutex // guards closed, sync, and the FIFO that embeds the base
	cond   sync.Cond  // signalled when an item is queued or the queue closes; L is &mu
	closed bool
	sync   syncState

	// depth is the queue's length, stored under mu at each change, read by Len
	// without it: process runs under mu, and whoever asks how deep the queue is
	// (a metrics scrape, the live page) must not wait for a handler's trace line
	// — in the live page's step mode, for a click.
	depth atomic.Int64
}

// write is how both FIFOs' Add and Update (and InOrderFIFO's Delete) queue obj:
// key it outside the lock, then, unless the queue is closed, hand q a delta of type
// t. q is the FIFO itself, which decides where the delta goes.
func (g *base[T]) write(q interface{ appendLocked(Delta[T]) }, t DeltaType, obj T) error {
	k, err := g.key(obj)
	if err != nil {
		return fmt.Errorf("fifo: %s: key: %w", t, err)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return ErrClosed
	}
	q.appendLocked(Delta[T]{Type: t, Key: k, Object: obj})
	return nil
}

// replace is both FIFOs' Replace around what is their own: key every object of
// list outside the lock (so that a key function error leaves the queue
// unchanged), then, unless the queue is closed, call locked under the lock with
// the keys, in list order, and the set of them, and count what q then holds
// for HasSynced. What locked queues, and in which order, is the FIFO's.
func (g *base[T]) replace(q interface{ lenLocked() int }, list []T, locked func(keys []string, listed map[string]struct{})) error {
	keys, listed, err := keysOf(g.key, list)
	if err != nil {
		return err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return ErrClosed
	}
	locked(keys, listed)
	g.sync.firstReplaceDone(q.lenLocked())
	return nil
}

// keysOf keys every object of list, in order, and returns the keys as a slice and as a
// set. It runs before the queue is locked: keying is the caller's code, and failing
// here leaves the queue untouched.
func keysOf[T any](key KeyFunc[T], list []T) ([]string, map[string]struct{}, error) {
	keys := make([]string, len(list))
	set := make(map[string]struct{}, len(list))
	for i, obj := range list {
		k, err := key(obj)
		if err != nil {
			return nil, nil, fmt.Errorf("fifo: replace: key of item %d: %w", i, err)
		}
		keys[i] = k
		set[k] = struct{}{}
	}
	return keys, set, nil
}

// resync is both FIFOs' Resync: under the lock, unless the queue is closed, a Sync
// delta with the stored object for every key the store knows and q does not report
// queued, in sorted key order. With no known objects it does nothing.
func (g *base[T]) resync(q interface {
	appendLocked(Delta[T])
	queuedLocked() func(key string) bool
}) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return ErrClosed
	}
	if g.known == nil {
		return nil
	}
	queued := q.queuedLocked()
	keys := g.known.ListKeys()
	slices.Sort(keys)
	for _, key := range keys {
		if queued(key) {
			continue
		}
		if obj, ok := g.known.GetByKey(key); ok {
			q.appendLocked(Delta[T]{Type: Sync, Key: key, Object: obj})
		}
	}
	return nil
}

// HasSynced reports whether the first Replace has happened and every item it left
// queued (a key in DeltaFIFO, a delta in InOrderFIFO) has been popped. Writes before
// the first Replace do not count.
func (g *base[T]) HasSynced() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.sync.synced()
}

// Close closes the queue: writes fail with ErrClosed from now on, and Pop, once it
// has handed out what was queued, returns ErrClosed. A Pop waiting on an empty queue
// wakes.
func (g *base[T]) Close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	g.cond.Broadcast()
}

func (g *base[T]) init() { g.cond.L = &g.mu }

// waitLocked blocks until q has an item, the queue is closed, or ctx is done. g.mu is
// held on entry and on return. A sync.Cond cannot select on a channel, so a cancellable
// ctx gets a context.AfterFunc that wakes every waiter, and the loop then sees ctx.Err.
// That func is registered only when Pop actually has to wait and removed before
// returning, so a Pop that finds an item costs no goroutine and no allocation.
//
// A closed queue still hands out what it holds: Close stops new writes, not the drain.
// A done ctx wins over both, so that cancelling stops an informer at once.
func (g *base[T]) waitLocked(ctx context.Context, q interface{ lenLocked() int }) error {
	var stop func() bool
	defer func() {
		if stop != nil {
			stop()
		}
	}()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if q.lenLocked() > 0 {
			return nil
		}
		if g.closed {
			return ErrClosed
		}
		if stop == nil && ctx.Done() != nil {
			stop = context.AfterFunc(ctx, func() {
				g.mu.Lock()
				defer g.mu.Unlock()
				g.cond.Broadcast()
			})
		}
		g.cond.Wait()
	}
}
