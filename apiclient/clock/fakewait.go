package clock

import "time"

// BlockUntilDue returns once an After is pending that is due exactly d from now:
// the code under test has started the wait the test expects (a Retry-After of d, a
// backoff of d), and Step(d) will end it. BlockUntilWaiters cannot tell that wait
// from older ones that were abandoned but never fired.
func (c *Fake) BlockUntilDue(d time.Duration) {
	c.blockUntil(func() bool {
		due := c.now.Add(d)
		for _, w := range c.waiters {
			if w.at.Equal(due) {
				return true
			}
		}
		return false
	})
}

// blockUntil returns once ready, called with c.mu held, reports true. It checks
// again each time a new After is registered, so it never polls.
func (c *Fake) blockUntil(ready func() bool) {
	for {
		c.mu.Lock()
		if ready() {
			c.mu.Unlock()
			return
		}
		if c.waiting == nil {
			c.waiting = make(chan struct{})
		}
		ch := c.waiting
		c.mu.Unlock()
		<-ch
	}
}
