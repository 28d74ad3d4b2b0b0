package fifo

import (
	"context"
	"errors"
)

// Sink is where the reflector (package listwatch) writes what the API server said:
// one call per watch event, Replace after every LIST. Both FIFOs implement it, and so does *store.Store, so a reflector can fill a store
// directly when nobody needs events.
type Sink[T any] interface {
	Add(obj T) error
	Update(obj T) error
	Delete(obj T) error
	// Replace says: list is everything that exists, as of resourceVersion.
	Replace(list []T, resourceVersion string) error
}

// Queue is a Sink that an informer can drain. DeltaFIFO and InOrderFIFO both implement
// it, so the informer runs on either; they differ only in how they group what they
// hand to Pop.
type Queue[T any] interface {
	Sink[T]
	// Resync queues every stored object again (a Sync delta); the informer calls
	// it on its resync timer. See DeltaFIFO.Resync.
	Resync() error
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
// process must not call methods of the queue it was popped from, but Len (the others
// would wait for the lock it holds), and should be quick: every write from the
// reflector waits for it.
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
