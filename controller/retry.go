package controller

import (
	"errors"

	"github.com/kubewire/kubewire/controller/trace"
)

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
		c.emit(trace.Event{Stage: trace.Controller, Verb: "reconcile", Key: req.String(), Outcome: "terminal", Err: err})
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
			c.emit(trace.Event{Stage: trace.Controller, Verb: "reconcile", Key: req.String(), Outcome: "dropped", Retry: c.opts.MaxRetries, Err: err})
			return
		}
	}
	// Back off and retry: AddRateLimited waits longer after each failure.
	c.queue.AddRateLimited(req)
	c.log.Warn("reconcile failed, will retry", "controller", c.name, "request", req.String(), "retry", c.queue.NumRequeues(req), "err", err)
	if c.trace != nil {
		c.emit(trace.Event{Stage: trace.Controller, Verb: "reconcile", Key: req.String(), Outcome: "error", Retry: c.queue.NumRequeues(req), Err: err})
	}
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
