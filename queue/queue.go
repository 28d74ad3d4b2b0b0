package queue

import (
	"sync"
	"time"
)

// Queue holds keys that need reconciling and hands each to one worker at a time.
//
// A key is in one of four states, kept in its entry:
//
//	idle        neither dirty nor processing, or no entry at all
//	queued      dirty, in a FIFO, waiting for Get
//	processing  handed out by Get, not yet Done
//	requeue     processing and dirty: added again meanwhile, back in a FIFO at Done
//
// Add moves idle→queued and processing→requeue and does nothing in the other two
// states; Get moves queued→processing; Done moves processing→idle and
// requeue→queued. Because Get only ever takes keys from the FIFOs, and a key is in a
// FIFO only while it is queued, no key is ever handed to two workers at once.
//
// There are two FIFOs, one per priority (priority.go): Get takes from the low one
// only when the normal one is empty. AddLowPriority queues a key in the low one; a
// plain Add of a key waiting there moves it to the normal one.
//
// The zero value is not usable; build a Queue with New. A Queue is safe for concurrent
// use by any number of producers and workers.
type Queue[K comparable] struct {
	clock    Clock
	limiter  Limiter[K]
	epoch    time.Time // times are kept as offsets from here: 8 bytes, not 24
	noTiming bool      // Config.NoTiming

	mu      sync.Mutex
	ready   sync.Cond // wakes a Get: the FIFO gained a key, or shutdown began
	drained sync.Cond // wakes ShutDownWithDrain: nothing queued, nothing processing

	keys         map[K]*entry[K] // every key that is not idle, and some that are
	fifo         ring[slot[K]]   // the queued keys of normal priority, oldest first
	low          ring[slot[K]]   // the queued keys of low priority, oldest first
	queued       int             // keys in the FIFOs (they may also hold stale slots)
	idle         int             // entries in keys that are idle
	getters      int             // goroutines waiting in Get, so Add signals only when needed
	processing   int             // keys handed out and not yet Done
	shuttingDown bool
	draining     bool // a ShutDownWithDrain is waiting; ShutDown clears it

	delayed delays[K] // AddAfter's keys, until they are due
	stats   stats     // counters and histograms read by Metrics
}

// entry is one key: which of the states drawn on Queue it is in, and since when, for
// the metrics.
//
// Hashing the key is, with reading the clock, most of what the queue does under its
// lock, so entries are arranged for it to happen twice per round trip (Add, Get, Done): the FIFO holds
// entries rather than keys, so Get hashes nothing; and Done leaves a finished key's
// entry in the map, idle, so that Done hashes once (no delete) and the next Add of
// the key, the common case for a controller whose objects change again and again,
// hashes once (no insert). client-go, with a FIFO of keys and separate dirty and
// processing sets, hashes a key seven times per round trip, fourteen with metrics on.
//
// Idle entries are swept out (see sweep) so that they never outnumber the others by
// much: memory follows the keys in use, not every key ever added.
type entry[K comparable] struct {
	key        K
	dirty      bool          // queued or requeue: must be (re)processed
	processing bool          // handed out by Get, not yet Done
	low        bool          // dirty at low priority: waits behind every other key
	seq        uint32        // which of its FIFO slots is live (priority.go)
	addedAt    time.Duration // since epoch: when it last became dirty
	startedAt  time.Duration // since epoch: when Get handed it out
}

// Sweeping: idle entries are left alone up to keepIdle of them or as many as the
// others, whichever is more; past that, each Done that idles a key visits up to
// sweepBatch entries and deletes the idle ones among them.
const (
	keepIdle   = 1024
	sweepBatch = 64
)

// Config says how to build a Queue. The zero value gives the real clock and the
// default controller rate limiter. New only reads it.
type Config[K comparable] struct {
	// Clock is the time source; nil means RealClock. Tests pass clock.Fake.
	Clock Clock
	// Limiter decides AddRateLimited's delays; nil means DefaultLimiter(Clock).
	Limiter Limiter[K]
	// NoTiming turns off the duration metrics (QueueTime, WorkTime, UnfinishedWork,
	// LongestRunning stay zero) and with them the three clock reads per key they
	// cost: about 40% of a key's round trip through an otherwise idle queue, on the
	// machine measured in bench/README.md. The counters are kept either way.
	NoTiming bool
}

// New returns an empty queue. It starts no goroutine.
func New[K comparable](cfg Config[K]) *Queue[K] {
	if cfg.Clock == nil {
		cfg.Clock = RealClock{}
	}
	if cfg.Limiter == nil {
		cfg.Limiter = DefaultLimiter[K](cfg.Clock)
	}
	q := &Queue[K]{
		clock:    cfg.Clock,
		limiter:  cfg.Limiter,
		epoch:    cfg.Clock.Now(),
		noTiming: cfg.NoTiming,
		keys:     make(map[K]*entry[K]),
	}
	q.ready.L = &q.mu
	q.drained.L = &q.mu
	q.delayed.index = make(map[K]*waiter[K])
	return q
}

// Add marks key as needing processing. If key is already waiting it does nothing, so
// a burst of events for one object costs one reconcile. If key is being processed it
// is handed out again after Done, never sooner. After shutdown Add does nothing.
// It reports whether it queued key: false for the deduplication (and after
// shutdown), which a trace tells apart (client-go's Add reports nothing). O(1).
func (q *Queue[K]) Add(key K) bool { return q.add(key, false) }

// add is Add or AddLowPriority.
func (q *Queue[K]) add(key K, low bool) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return !q.shuttingDown && q.addLocked(key, low)
}

// Get blocks until a key is queued, marks it processing and returns it. The caller
// must call Done(key) when finished with it, whatever the outcome, or the key is
// never handed out again. After shutdown, Get keeps handing out what is queued and
// then returns quit=true: the worker should return. O(1).
func (q *Queue[K]) Get() (key K, quit bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.queued == 0 && !q.shuttingDown {
		q.getters++
		q.ready.Wait()
		q.getters--
	}
	if q.queued == 0 {
		return key, true // shutting down and nothing left
	}
	e := q.pop()
	// The clock is read under the lock, here and in Add and Done. Reading it before
	// Lock looks cheaper, but measured with many workers it was slower: the shorter
	// the critical sections, the more often a worker finds the lock taken by one that
	// left it a moment ago, and parking and waking goroutines costs microseconds.
	now := q.stamp()
	if !q.noTiming {
		q.stats.queueTime.observe(now - e.addedAt)
	}
	q.stats.dirty--
	e.dirty, e.processing, e.startedAt = false, true, now
	q.processing++
	return e.key, false
}

// Done marks the end of processing key. If key was added while it was processed, it
// goes back at the end of the FIFO now; otherwise it becomes idle. Done on a key that
// Get did not hand out does nothing. O(1).
func (q *Queue[K]) Done(key K) {
	q.mu.Lock()
	defer q.mu.Unlock()
	e := q.keys[key]
	if e == nil || !e.processing {
		return
	}
	q.processing--
	if !q.noTiming {
		q.stats.workTime.observe(q.now() - e.startedAt)
	}
	e.processing = false
	if e.dirty {
		q.push(e, e.low)
	} else if q.idle++; q.idle > keepIdle && q.idle > len(q.keys)-q.idle {
		q.sweep()
	}
	if q.draining && q.processing == 0 && q.queued == 0 {
		q.drained.Broadcast()
	}
}

// Len returns how many keys are queued for Get: not those being processed, nor those
// waiting in AddAfter. For logs and tests; by the time the caller reads it, it may
// have changed. O(1).
func (q *Queue[K]) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.queued
}

// ShutDown makes Add, AddAfter and AddRateLimited do nothing from now on, drops the
// keys AddAfter is holding, and wakes every Get: workers take what is still queued,
// then Get reports quit. It does not wait. Calling it again, or after
// ShutDownWithDrain, is allowed; it makes a waiting ShutDownWithDrain return at once.
func (q *Queue[K]) ShutDown() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.shutDownLocked()
	q.draining = false
	q.drained.Broadcast()
}

// ShutDownWithDrain shuts down as ShutDown does, then waits until the queue is empty
// and every key handed out has been marked Done: when it returns, every key queued
// before the call has been processed (unless a ShutDown ended the wait). It blocks
// forever if workers stop calling Get or Done; a ShutDown from another goroutine
// ends the wait.
func (q *Queue[K]) ShutDownWithDrain() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.shutDownLocked()
	q.draining = true
	for q.draining && (q.processing > 0 || q.queued > 0) {
		q.drained.Wait()
	}
}

// ShuttingDown reports whether ShutDown or ShutDownWithDrain has been called.
func (q *Queue[K]) ShuttingDown() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.shuttingDown
}

// addLocked is Add (low false) or AddLowPriority (low true) with q.mu held and the
// queue not shut down; false when key was already waiting.
func (q *Queue[K]) addLocked(key K, low bool) bool {
	e := q.keys[key]
	switch {
	case e == nil:
		e = &entry[K]{key: key}
		q.keys[key] = e
	case e.dirty:
		if e.low && !low {
			q.promote(e) // a real change to a key that waited behind the others
		}
		return false // already waiting: this is the deduplication
	case !e.processing:
		q.idle-- // an idle entry that Done left: use it again
	}
	q.stats.adds++
	q.stats.dirty++
	e.dirty, e.low, e.addedAt = true, low, q.stamp()
	if !e.processing {
		q.push(e, low) // else Done pushes it, so that no two workers hold it
	}
	return true
}

// sweep deletes the idle entries among up to sweepBatch entries of the map. Go
// starts each range over a map at a random place, so successive sweeps visit
// different entries; as more than half of them are idle when sweep is called, each
// call deletes about half a batch. That keeps the cost of one Done bounded (no pause
// to walk a map of a million keys) and, amortised, about one delete per key gone
// idle: what deleting at once would cost, paid only by keys that stay idle.
func (q *Queue[K]) sweep() {
	n := 0
	for key, e := range q.keys {
		if !e.dirty && !e.processing {
			delete(q.keys, key)
			q.idle--
		}
		if n++; n == sweepBatch {
			return
		}
	}
}

// shutDownLocked is the part of shutdown the two variants share.
func (q *Queue[K]) shutDownLocked() {
	q.shuttingDown = true
	q.delayed.stop()
	q.ready.Broadcast()
}

// now returns the clock's time as an offset from q.epoch.
func (q *Queue[K]) now() time.Duration { return q.clock.Since(q.epoch) }

// stamp is now for the duration metrics: 0, without reading the clock, when they
// are off.
func (q *Queue[K]) stamp() time.Duration {
	if q.noTiming {
		return 0
	}
	return q.now()
}
