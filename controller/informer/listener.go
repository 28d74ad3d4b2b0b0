package informer

import (
	"context"
	"sync"
	"time"
)

// listener feeds one Handler. The informer appends notifications without ever
// blocking; the listener's goroutine (run) takes them in order and calls the
// handler. The buffer between them grows as long as the handler is behind:
// nothing is dropped, and Backlog makes the growth visible (a metric), instead of
// the silent unbounded growth of client-go's processorListener buffer.
//
// Safe for concurrent use: the informer's goroutine adds, run consumes.
type listener struct {
	name    string // for trace lines: the registration's name, or "#index"
	handler Handler
	resync  time.Duration // 0: this handler wants no resyncs

	mu       sync.Mutex
	pending  []notification // a slice consumed from the front: pending[head:] are waiting
	head     int
	wake     chan struct{} // buffered(1): "pending is not empty"
	synced   chan struct{} // closed when the handler has had the initial list
	nextSync time.Time     // when this handler's next resync is due
	handled  uint64        // notifications the handler has returned from
	busy     bool          // the handler is running, on the notification next took
}

func newListener(name string, h Handler, resync time.Duration) *listener {
	return &listener{name: name, handler: h, resync: resync, wake: make(chan struct{}, 1), synced: make(chan struct{})}
}

// add queues a notification; it never blocks.
func (l *listener) add(n notification) {
	l.mu.Lock()
	l.pending = append(l.pending, n)
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default: // already signalled
	}
}

// run calls the handler for each notification, in order, until ctx is done. Its
// owner is the informer's Run, which starts it and waits for it.
func (l *listener) run(ctx context.Context) {
	for {
		n, ok := l.next()
		if !ok {
			select {
			case <-ctx.Done():
				return
			case <-l.wake:
				continue
			}
		}
		// Each handler is given copies of its own (Object.Copy: the metadata;
		// the server's bytes are never changed by anyone), so that nothing it
		// does reaches the cache or another handler. A resync's old and new stay
		// one object.
		switch n.kind {
		case addNotification:
			l.handler.OnAdd(n.obj.Copy(), n.flag)
		case updateNotification:
			obj := n.obj.Copy()
			old := obj
			if n.old != n.obj {
				old = n.old.Copy()
			}
			l.handler.OnUpdate(old, obj)
		case deleteNotification:
			l.handler.OnDelete(n.obj.Copy(), n.flag)
		case syncedMarker:
			close(l.synced) // the informer adds the marker once per listener
			continue
		}
		l.mu.Lock()
		l.handled++
		l.busy = false
		l.mu.Unlock()
	}
}

// next takes the oldest pending notification.
func (l *listener) next() (notification, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.head == len(l.pending) {
		// Empty: start the slice over, so a burst's memory is released once the
		// handler has caught up.
		l.pending, l.head = nil, 0
		return notification{}, false
	}
	n := l.pending[l.head]
	l.pending[l.head] = notification{} // do not pin the objects
	l.head++
	l.busy = n.kind != syncedMarker // no handler runs for the marker
	return n, true
}

// Backlog is how many notifications wait for this handler.
func (l *listener) Backlog() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.pending) - l.head
}

// state is where the handler stands: Informer.Handlers.
func (l *listener) state() HandlerState {
	l.mu.Lock()
	defer l.mu.Unlock()
	return HandlerState{Name: l.name, Backlog: len(l.pending) - l.head, Busy: l.busy, Handled: l.handled}
}

// HasSynced reports whether the handler has been given the whole initial list.
func (l *listener) HasSynced() bool { return closed(l.synced) }

// resyncDue is when this handler's next resync is due, if it wants resyncs.
func (l *listener) resyncDue() (time.Time, bool) {
	if l.resync <= 0 {
		return time.Time{}, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.nextSync, true
}

// dueForResync says whether this handler's resync period has passed at now, and if
// so schedules the next one.
func (l *listener) dueForResync(now time.Time) bool {
	if l.resync <= 0 {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Before(l.nextSync) {
		return false
	}
	l.nextSync = now.Add(l.resync)
	return true
}
