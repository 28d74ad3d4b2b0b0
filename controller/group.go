package controller

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// group runs goroutines under one context and waits for them. The first that
// fails cancels the context for all, and its error is the group's. One that
// returns the context's own error after the context is done is stopping, not
// failing: a ctx that ends, however (cancelled, with a cause, past its
// deadline), is a stop that was asked for, and wait returns nil. Any other
// error after the end is a failure to stop (a controller that had to leave a
// reconcile running): the group's error, if it has none yet.
//
// Manager.Run uses one group for what runs all the time (informers, the metrics
// server, leader election) and, with leader election, one per term of
// leadership for the controllers, so that what is added after Run joins the
// group it belongs to. start must not be called once wait has begun; the Manager
// ensures that by forgetting a group, under its lock, before waiting on it.
type group struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu  sync.Mutex
	err error // the first failure
}

func newGroup(parent context.Context) *group {
	ctx, cancel := context.WithCancel(parent)
	return &group{ctx: ctx, cancel: cancel}
}

// start runs run on a goroutine of its own, owned by the group: wait waits for
// it. A failure is reported as "name: err".
func (g *group) start(name string, run func(context.Context) error) {
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		if err := run(g.ctx); err != nil && !g.stopping(err) {
			g.mu.Lock()
			if g.err == nil {
				g.err = fmt.Errorf("%s: %w", name, err)
			}
			g.mu.Unlock()
			g.cancel()
		}
	}()
}

// stopping reports whether err is how a goroutine returns when the group's
// context has ended: that context's error (or cause), or one wrapping it.
func (g *group) stopping(err error) bool {
	return g.ctx.Err() != nil && (errors.Is(err, g.ctx.Err()) || errors.Is(err, context.Cause(g.ctx)) ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded))
}

// wait blocks until every goroutine started has returned, and returns the first
// failure, or nil.
func (g *group) wait() error {
	g.wg.Wait()
	g.cancel()
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.err
}
