package queue

// Priority: after a restart, a controller's informers hand it every object they
// list, and each becomes a key in the queue — ten thousand keys for ten thousand
// objects, although almost none of them changed. An object that did change while
// the controller was down, or just after it came back, then waits behind all of
// them: with one worker and 1 ms reconciles, ten seconds. Periodic resyncs do the
// same on a smaller scale.
//
// So the queue has two FIFOs. AddLowPriority puts a key in the low one, and Get
// takes from it only when the normal one is empty: the initial list and resyncs
// still get reconciled, in order, but behind every real change. A plain Add of a
// key that is waiting at low priority moves it to the normal FIFO (a real change
// to an object whose initial-list key was still waiting); AddLowPriority never
// demotes a key waiting at normal priority, and a key added at both priorities
// while it is processed goes back at normal priority.
//
// Moving a key means taking it out of the middle of a ring, which would cost
// O(n). Instead each entry carries a sequence number and each FIFO slot the
// number it was pushed with: promote pushes a new slot, with a new number, to the
// normal FIFO, and the old slot in the low FIFO becomes stale, skipped when pop
// reaches it. A key therefore has at most one live slot; stale ones cost 16 bytes
// each until popped. queued counts live slots, so Len and Get do not see stale
// ones.
//
// client-go's workqueue has no priorities. controller-runtime v0.23's priority
// queue (on by default) orders by an integer priority, and gives the events of
// the initial list and of resyncs a low one; it keeps its items in a B-tree,
// O(log n) per operation. Two FIFOs keep every operation here O(1).

// slot is one place in a FIFO: the entry, and the seq it was pushed with.
type slot[K comparable] struct {
	e   *entry[K]
	seq uint32
}

// AddLowPriority is Add for a key that is probably unchanged — an object of an
// informer's initial list, a resync: it waits until no key added with Add,
// AddAfter or AddRateLimited is queued. Deduplication, and what it reports, are
// as for Add. O(1).
func (q *Queue[K]) AddLowPriority(key K) bool { return q.add(key, true) }

// push appends e to the FIFO of its priority and wakes one waiting Get, if there
// is one.
func (q *Queue[K]) push(e *entry[K], low bool) {
	e.seq++
	e.low = low
	if low {
		q.low.push(slot[K]{e, e.seq})
	} else {
		q.fifo.push(slot[K]{e, e.seq})
	}
	q.queued++
	if q.getters > 0 {
		q.ready.Signal()
	}
}

// promote moves a queued key from the low FIFO to the normal one: a new live slot
// there, and the old one stale.
func (q *Queue[K]) promote(e *entry[K]) {
	if e.processing { // requeue: Done pushes it, at the priority it finds
		e.low = false
		return
	}
	q.queued-- // push counts the new slot; the old one is no longer live
	q.push(e, false)
}

// pop takes the oldest live slot, normal priority first; one must exist.
func (q *Queue[K]) pop() *entry[K] {
	e := popLive(&q.fifo)
	if e == nil {
		e = popLive(&q.low)
	}
	q.queued--
	return e
}

// popLive pops r up to its first live slot and returns that slot's entry, or nil
// when r holds none.
func popLive[K comparable](r *ring[slot[K]]) *entry[K] {
	for r.len() > 0 {
		if s := r.pop(); s.seq == s.e.seq {
			return s.e
		}
	}
	return nil
}
