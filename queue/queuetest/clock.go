package queuetest

import (
	"slices"
	"sync"
	"time"

	"github.com/kubewire/kubewire/queue"
)

// Clock is a fake queue.Clock. Its time moves only in Step and Set, and its timers
// fire only there, on the goroutine that called Step or Set, in order of their due
// times, each seeing Now equal to its due time.
//
// The zero value is a clock stopped at the zero time.Time, ready to use; NewClock
// starts it elsewhere. A Clock is safe for concurrent use.
type Clock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*Timer // pending timers, in no particular order
}

var _ queue.Clock = (*Clock)(nil)

// NewClock returns a clock stopped at start.
func NewClock(start time.Time) *Clock { return &Clock{now: start} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Since returns how far the clock is past t.
func (c *Clock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

// AfterFunc arranges for f to be called once the clock has moved d forward. It never
// calls f itself, even for d <= 0: such a timer fires at the next Step or Set.
func (c *Clock) AfterFunc(d time.Duration, f func()) queue.Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &Timer{c: c, f: f}
	c.schedule(t, d)
	return t
}

// Step moves the clock forward by d, firing every timer that falls due on the way.
func (c *Clock) Step(d time.Duration) { c.Set(c.Now().Add(d)) }

// Set moves the clock to t (it never moves back: an earlier t only fires timers due
// by now), firing every timer due by then. A timer's f may arm timers of its own;
// those that fall due by t fire too, before Set returns.
//
// f runs without the clock's lock held, so it may call Now, AfterFunc, Stop and
// Reset.
func (c *Clock) Set(t time.Time) {
	for {
		c.mu.Lock()
		next := c.nextDue()
		if next == nil || next.due.After(t) {
			if t.After(c.now) {
				c.now = t
			}
			c.mu.Unlock()
			return
		}
		if next.due.After(c.now) {
			c.now = next.due
		}
		c.unschedule(next)
		c.mu.Unlock()
		next.f()
	}
}

// Timers returns how many timers are pending: tests use it to check that a queue
// holding many delayed keys arms one timer, not one per key.
func (c *Clock) Timers() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// Timer is a pending call made by Clock.AfterFunc.
//
// The zero value is not usable; Clock.AfterFunc returns Timers. A Timer is safe for
// concurrent use.
type Timer struct {
	c   *Clock
	f   func()
	due time.Time
}

// Stop cancels the call if it is pending, and reports whether it was.
func (t *Timer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	return t.c.unschedule(t)
}

// Reset makes the call happen d after the clock's current time, whether or not it
// has happened already, and reports whether it was pending.
func (t *Timer) Reset(d time.Duration) bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	pending := t.c.unschedule(t)
	t.c.schedule(t, d)
	return pending
}

// schedule makes t pending, due d from now. c.mu must be held.
func (c *Clock) schedule(t *Timer, d time.Duration) {
	t.due = c.now.Add(d)
	c.timers = append(c.timers, t)
}

// unschedule removes t from the pending timers, reporting whether it was there.
// c.mu must be held.
func (c *Clock) unschedule(t *Timer) bool {
	i := slices.Index(c.timers, t)
	if i < 0 {
		return false
	}
	c.timers = slices.Delete(c.timers, i, i+1)
	return true
}

// nextDue returns the pending timer due first (the one armed first, among equals),
// or nil. c.mu must be held.
func (c *Clock) nextDue() *Timer {
	var next *Timer
	for _, t := range c.timers {
		if next == nil || t.due.Before(next.due) {
			next = t
		}
	}
	return next
}
