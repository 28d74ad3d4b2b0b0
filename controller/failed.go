package controller

import (
	"errors"
	"time"

	"github.com/kubewire/kubewire/controller/trace"
)

// failed decides what becomes of a Request whose Reconcile returned err after
// took: a Terminal error is given up at once; any other is retried after the
// Limiter's delay, without a limit unless MaxRetries is set.
func (c *Controller) failed(req Request, err error, took time.Duration) {
	var t *terminalError
	if errors.As(err, &t) {
		c.stats.observe(terminal, took)
		c.queue.Forget(req)
		c.forgetFailures(req)
		c.log.Error("reconcile failed for good", "controller", c.name, "request", req.String(), "err", err)
		c.emit(trace.Event{Stage: trace.Controller, Verb: "reconcile", Key: req.String(), Outcome: "terminal", Err: err})
		return
	}
	c.stats.observe(failure, took)
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
	c.backOff(req)
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

// backOff requeues req after the Limiter's delay (an error, a Result.Requeue),
// and counts it as waiting in backoff until a worker takes it again.
func (c *Controller) backOff(req Request) {
	c.stats.backingOff(req)
	c.queue.AddRateLimited(req)
}
