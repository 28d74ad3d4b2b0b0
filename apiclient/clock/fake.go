package clock

import (
	"sort"
	"sync"
	"time"
)

// Fake is the module's one fake Clock: time stands still until Step moves it,
// and then every After whose deadline has passed fires, and every AfterFunc
// (fakefunc.go) that fell due runs. Tests use it so that waits (rate limits,
// Retry-After, backoff, the workqueue's delays) take no real time.
//
// The zero value starts at the zero time; NewFake starts at a fixed, readable
// instant. Safe for concurrent use.
type Fake struct {
	mu      sync.Mutex
	now     time.Time
	waiters []waiter
	timers  []*funcTimer // pending AfterFunc calls, in the order they were armed
	// waiting is signalled whenever a new waiter arrives, so a test can wait for
	// the code under test to block before moving time.
	waiting chan struct{}
}

type waiter struct {
	at time.Time
	ch chan time.Time
}

// NewFake returns a Fake set to 2026-01-01 00:00:00 UTC.
func NewFake() *Fake {
	return &Fake{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
}

// Now returns the fake time.
func (c *Fake) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// After returns a channel that receives when the fake time reaches now+d.
func (c *Fake) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- c.now
		return ch
	}
	c.waiters = append(c.waiters, waiter{at: c.now.Add(d), ch: ch})
	c.signal()
	return ch
}

// Step moves time forward by d and fires what is due: Afters, and AfterFunc calls
// in due order (see advance).
func (c *Fake) Step(d time.Duration) { c.advance(c.Now().Add(d)) }

// Waiters returns how many After channels have not fired yet.
func (c *Fake) Waiters() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.waiters)
}

// NextDeadline returns how far ahead the earliest pending After is, and false when
// none is pending.
func (c *Fake) NextDeadline() (time.Duration, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.waiters) == 0 {
		return 0, false
	}
	sort.Slice(c.waiters, func(i, j int) bool { return c.waiters[i].at.Before(c.waiters[j].at) })
	return c.waiters[0].at.Sub(c.now), true
}

// BlockUntilWaiters returns once at least n After calls are pending: the code under
// test has reached its wait, and time can be moved.
func (c *Fake) BlockUntilWaiters(n int) {
	c.blockUntil(func() bool { return len(c.waiters) >= n })
}

func (c *Fake) fire() {
	kept := c.waiters[:0]
	for _, w := range c.waiters {
		if !w.at.After(c.now) {
			w.ch <- c.now
		} else {
			kept = append(kept, w)
		}
	}
	c.waiters = kept
}

// signal wakes BlockUntilWaiters; called with mu held.
func (c *Fake) signal() {
	if c.waiting != nil {
		close(c.waiting)
		c.waiting = nil
	}
}
