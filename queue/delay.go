package queue

import (
	"container/heap"
	"time"
)

// delays holds the keys given to AddAfter until they are due: a min-heap ordered by
// due time, an index from key to heap entry (so a second AddAfter of the same key
// finds it in O(1)), and one timer armed for the earliest due time.
//
// One timer for the whole heap is the point: a controller that backs off ten
// thousand failing objects holds ten thousand heap entries, not ten thousand timers
// or goroutines.
//
// The zero value is an empty heap with no timer (the queue makes the index). It is not
// safe for concurrent use: every method runs with the queue's mutex held.
type delays[K comparable] struct {
	heap    waiters[K]
	index   map[K]*waiter[K]
	timer   Timer         // nil until the first AddAfter
	armedAt time.Duration // when timer fires, if armed
	armed   bool
}

// waiter is one key in the heap. Built by insert; guarded by the queue's mutex.
type waiter[K comparable] struct {
	key K
	due time.Duration // since the queue's epoch
	pos int           // position in the heap, kept by Swap, for heap.Fix
}

// AddAfter adds key to the queue once d has passed. If key is already waiting here,
// the earlier of the two due times wins: a retry asked for sooner is never pushed
// later by one asked for after it. A d of zero or less is Add. Either way it counts
// as a retry in the metrics. After shutdown it does nothing. O(log n) in the number
// of waiting keys.
//
// A key waiting here is not yet in the queue: an Add of the same key meanwhile queues
// it at once, and it is added again when due (if it is still queued then, that second
// add is absorbed like any other).
func (q *Queue[K]) AddAfter(key K, d time.Duration) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.shuttingDown {
		return
	}
	q.stats.retries++
	if d <= 0 {
		q.addLocked(key, false)
		return
	}
	now := q.now()
	q.delayed.insert(key, now+d)
	q.arm(now)
}

// insert puts key in the heap to be due at due, or moves it earlier if it is there.
func (d *delays[K]) insert(key K, due time.Duration) {
	if w, ok := d.index[key]; ok {
		if due < w.due {
			w.due = due
			heap.Fix(&d.heap, w.pos)
		}
		return
	}
	w := &waiter[K]{key: key, due: due}
	heap.Push(&d.heap, w)
	d.index[key] = w
}

// arm makes sure the timer fires no later than the earliest due time. It leaves a
// timer that fires too early alone: fire re-arms it.
func (q *Queue[K]) arm(now time.Duration) {
	d := &q.delayed
	if len(d.heap) == 0 {
		return
	}
	next := d.heap[0].due
	if d.armed && d.armedAt <= next {
		return
	}
	d.armed, d.armedAt = true, next
	if d.timer == nil {
		d.timer = q.clock.AfterFunc(next-now, q.fire)
	} else {
		d.timer.Reset(next - now)
	}
}

// fire is the timer's callback: it moves every key that is due into the queue and
// re-arms the timer for the next one. A timer may fire late, or fire after a Reset
// already moved it (the real clock does not promise otherwise); both are harmless,
// because fire looks at the clock and not at why it was called.
func (q *Queue[K]) fire() {
	q.mu.Lock()
	defer q.mu.Unlock()
	d := &q.delayed
	d.armed = false
	if q.shuttingDown {
		return
	}
	now := q.now()
	for len(d.heap) > 0 && d.heap[0].due <= now {
		w := heap.Pop(&d.heap).(*waiter[K])
		delete(d.index, w.key)
		q.addLocked(w.key, false)
	}
	q.arm(now)
}

// stop drops every waiting key and stops the timer: after shutdown nothing is added.
func (d *delays[K]) stop() {
	if d.timer != nil {
		d.timer.Stop()
	}
	d.heap, d.armed = nil, false
	clear(d.index)
}

// len returns how many keys are waiting.
func (d *delays[K]) len() int { return len(d.heap) }

// waiters implements heap.Interface, earliest due time first. The zero value is an
// empty heap; guarded by the queue's mutex.
type waiters[K comparable] []*waiter[K]

func (h waiters[K]) Len() int           { return len(h) }
func (h waiters[K]) Less(i, j int) bool { return h[i].due < h[j].due }
func (h waiters[K]) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].pos, h[j].pos = i, j
}

func (h *waiters[K]) Push(x any) {
	w := x.(*waiter[K])
	w.pos = len(*h)
	*h = append(*h, w)
}

func (h *waiters[K]) Pop() any {
	old := *h
	w := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return w
}
