package controller

import "errors"

// failed decides what becomes of a Request whose Reconcile returned err: a
// Terminal error is given up at once; any other is retried after the Limiter's
// delay, without a limit unless MaxRetries is set.
func (c *Controller) failed(req Request, err error) {
	var terminal *terminalError
	if errors.As(err, &terminal) {
		c.stats.terminal.Add(1)
		c.queue.Forget(req)
		c.forgetFailures(req)
		c.log.Error("reconcile failed for good", "controller", c.name, "request", req.String(), "err", err)
		c.tracef("controller reconcile %s terminal error: %v", req, err)
		return
	}
	if c.opts.MaxRetries > 0 {
		c.mu.Lock()
		c.failures[req]++
		n := c.failures[req]
		c.mu.Unlock()
		if n > c.opts.MaxRetries {
			c.queue.Forget(req)
			c.forgetFailures(req)
			c.stats.dropped.Add(1)
			c.log.Error("reconcile failed too often, dropping", "controller", c.name, "request", req.String(), "retries", c.opts.MaxRetries, "err", err)
			c.tracef("controller reconcile %s dropped after %d retries: %v", req, c.opts.MaxRetries, err)
			return
		}
	}
	// Back off and retry: AddRateLimited waits longer after each failure.
	c.queue.AddRateLimited(req)
	c.log.Warn("reconcile failed, will retry", "controller", c.name, "request", req.String(), "retry", c.queue.NumRequeues(req), "err", err)
	c.tracef("controller reconcile %s error (retry %d): %v", req, c.queue.NumRequeues(req), err)
}

// forgetFailures ends req's run of failures in a row (MaxRetries counts them).
func (c *Controller) forgetFailures(req Request) {
	if c.failures == nil {
		return
	}
	c.mu.Lock()
	delete(c.failures, req)
	c.mu.Unlock()
}
