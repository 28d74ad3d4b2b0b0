package fifo

import (
	"context"
	"errors"
	"sync"
)

// Sink is where the reflector (package listwatch) writes what the API server said:
// one call per watch event, Replace after every LIST, Resync on the resync timer.
// Both FIFOs implement it, and so does *store.Store, so a reflector can fill a store
// directly when nobody needs events.
type Sink[T any] interface {
	Add(obj T) error
	Update(obj T) error
	Delete(obj T) error
	// Replace says: list is everything that exists, as of resourceVersion.
	Replace(list []T, resourceVersion string) error
	Resync() error
}

// Queue is a Sink that an informer can drain. DeltaFIFO and InOrderFIFO both implement
// it, so the informer runs on either; they differ only in how they group what they
// hand to Pop.
type Queue[T any] interface {
	Sink[T]
	// Pop waits for the next item and calls process with it; see DeltaFIFO.Pop.
	Pop(ctx context.Context, process ProcessFunc[T]) error
	// HasSynced reports whether everything the first Replace queued has been popped.
	HasSynced() bool
	// Len is the number of items waiting: keys for DeltaFIFO, deltas for InOrderFIFO.
	// For metrics and traces.
	Len() int
	// Close makes Pop return ErrClosed once the queue is empty, and writes fail.
	Close()
}

// ProcessFunc is what Pop calls with one item, while it holds the queue's lock (see
// DeltaFIFO.Pop for why). initial is true while the queue has not yet synced, i.e. for
// the items of the first LIST; informers pass it on to handlers as isInInitialList.
//
// process must not call methods of the queue it was popped from (they would wait for
// the lock it holds) and should be quick: every write from the reflector waits for it.
type ProcessFunc[T any] func(deltas Deltas[T], initial bool) error

// KnownObjects is what a FIFO needs from the store behind it: the keys it holds, and
// the object under a key. Replace reads it to find objects the relist no longer lists,
// and Resync to find objects to resync. *store.Store[T] satisfies it.
//
// A FIFO reads it while holding its own lock, and the informer writes the store only
// from inside process, under that same lock, so the two always agree.
type KnownObjects[T any] interface {
	ListKeys() []string
	GetByKey(key string) (obj T, exists bool)
}

// KeyFunc makes an object's key; store.MetaKey is the usual one. It is the same shape
// as store.KeyFunc, which fifo does not import.
type KeyFunc[T any] func(obj T) (string, error)

// ErrClosed is returned by Pop once the queue is closed and empty, and by every write
// to a closed queue.
var ErrClosed = errors.New("fifo: closed")

// Both FIFOs are Queues.
var (
	_ Queue[int] = (*DeltaFIFO[int])(nil)
	_ Queue[int] = (*InOrderFIFO[int])(nil)
)

// syncState is the bookkeeping behind HasSynced, the same in both FIFOs: the first
// Replace records how many items it left queued, and every Pop counts one down.
// Items queued after that Replace sit behind those items (both FIFOs only ever append),
// so when the count reaches zero every item of the first Replace has been popped.
type syncState struct {
	replaced bool // the first Replace has happened
	pending  int  // items queued by then that are still waiting
}

func (s *syncState) synced() bool { return s.replaced && s.pending == 0 }

// firstReplaceDone is called at the end of every Replace with the queue length.
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

// gate is the part of a FIFO's locking both FIFOs share: the lock, the condition Pop
// waits on, and the closed flag. The zero gate is not ready: call init once.
type gate struct {
	mu     sync.Mutex // guards everything in the FIFO that embeds the gate
	cond   sync.Cond  // signalled when an item is queued or the queue closes; L is &mu
	closed bool
}

func (g *gate) init() { g.cond.L = &g.mu }

// waitLocked blocks until q has an item, the queue is closed, or ctx is done. g.mu is
// held on entry and on return. A sync.Cond cannot select on a channel, so a cancellable
// ctx gets a context.AfterFunc that wakes every waiter, and the loop then sees ctx.Err.
// That func is registered only when Pop actually has to wait and removed before
// returning, so a Pop that finds an item costs no goroutine and no allocation.
//
// A closed queue still hands out what it holds: Close stops new writes, not the drain.
// A done ctx wins over both, so that cancelling stops an informer at once.
func (g *gate) waitLocked(ctx context.Context, q interface{ lenLocked() int }) error {
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

// close marks the queue closed and wakes every waiting Pop so that it can return.
func (g *gate) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	g.cond.Broadcast()
}
