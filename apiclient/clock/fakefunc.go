package clock

import (
	"slices"
	"time"
)

// The callback half of Fake: Since, and AfterFunc timers that fire inside Step.
// The queue and the controller arm timers with callbacks rather than channels
// (Clock says why), so one fake serves the client's waits, the Reflector's, the
// queue's and the controller's.

// funcTimer is a pending AfterFunc call.
type funcTimer struct {
	c   *Fake
	f   func()
	due time.Time
}

// Since returns how far the fake time is past t.
func (c *Fake) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

// AfterFunc arranges for f to be called once the fake time has moved d forward: f
// runs inside Step, on the goroutine that called it, with Now equal to its due time;
// timers fire in the order they fall due (the one armed first among equals). It
// never calls f itself, even for d <= 0: such a timer fires at the next Step.
//
// Stop cancels the call if it is pending, Reset re-arms it d from now; each
// reports whether the call was pending.
func (c *Fake) AfterFunc(d time.Duration, f func()) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &funcTimer{c: c, f: f}
	c.schedule(t, d)
	return t
}

// Timers returns how many AfterFunc calls are pending: a queue holding many delayed
// keys arms one timer, not one per key, and tests check it here.
func (c *Fake) Timers() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// Stop cancels the call if it is pending, and reports whether it was.
func (t *funcTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	return t.c.unschedule(t)
}

// Reset makes the call happen d after the clock's current time, whether or not it
// has happened already, and reports whether it was pending.
func (t *funcTimer) Reset(d time.Duration) bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	pending := t.c.unschedule(t)
	t.c.schedule(t, d)
	return pending
}

// advance moves the time to end, firing on the way every After and every AfterFunc
// that falls due. An AfterFunc's f runs without the lock, so it may call Now,
// AfterFunc, Stop and Reset; the timers it arms that fall due by end fire too.
func (c *Fake) advance(end time.Time) {
	for {
		c.mu.Lock()
		next := c.nextDue()
		if next == nil || next.due.After(end) {
			if end.After(c.now) {
				c.now = end
			}
			c.fire()
			c.mu.Unlock()
			return
		}
		if next.due.After(c.now) {
			c.now = next.due
		}
		c.fire()
		c.unschedule(next)
		c.mu.Unlock()
		next.f()
	}
}

// schedule makes t pending, due d from now; c.mu is held.
func (c *Fake) schedule(t *funcTimer, d time.Duration) {
	t.due = c.now.Add(d)
	c.timers = append(c.timers, t)
}

// unschedule removes t from the pending timers, reporting whether it was there;
// c.mu is held.
func (c *Fake) unschedule(t *funcTimer) bool {
	i := slices.Index(c.timers, t)
	if i < 0 {
		return false
	}
	c.timers = slices.Delete(c.timers, i, i+1)
	return true
}

// nextDue returns the pending timer due first (the one armed first among equals),
// or nil; c.mu is held.
func (c *Fake) nextDue() *funcTimer {
	var next *funcTimer
	for _, t := range c.timers {
		if next == nil || t.due.Before(next.due) {
			next = t
		}
	}
	return next
}
