package leaderelection

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kubewire/kubewire/controller/lease"
)

// lead runs the work while renewing the Lease, and tears both down in order: first
// the work stops, then the Lease is released (if asked), so that a successor never
// starts while this replica's work still runs.
func (e *Elector) lead(ctx context.Context, work func(context.Context)) error {
	log := e.cfg.Logger.With("lease", e.cfg.Namespace+"/"+e.cfg.Name, "identity", e.cfg.Identity)
	workCtx, stopWork := context.WithCancel(ctx)
	defer stopWork()
	// The work's goroutine is owned by lead: lead cancels its ctx and waits for it
	// to return (done) before lead returns.
	done := make(chan struct{})
	go func() {
		defer close(done)
		if work == nil {
			<-workCtx.Done()
			return
		}
		work(workCtx)
	}()

	err := e.renewLoop(ctx, done)
	e.setLeading(false, time.Time{})
	stopWork()
	<-done // the work has stopped: only now may the Lease go to someone else
	if err != nil {
		log.Info("stopped leading", "err", err)
		return err
	}
	if e.cfg.ReleaseOnCancel {
		// A standby sees the empty holder at its next read and takes over at once,
		// rather than waiting out LeaseDuration. ctx is done by now, so the writes
		// get a context of their own, bounded by RenewDeadline.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), e.cfg.RenewDeadline)
		released, rerr := e.holder.Release(rctx)
		cancel()
		switch {
		case rerr != nil:
			log.Info("could not release the lease; a standby will take over once it expires", "err", rerr)
		case released != nil:
			e.observeWritten(released)
			log.Info("released lease")
		}
	}
	return nil
}

// renewLoop renews the Lease every RetryPeriod until ctx is done or the work
// returns (nil), or until leadership is lost (an error wrapping ErrLeadershipLost).
//
// After a failed renewal it tries again every RetryPeriod, the last wait cut
// short at the renew deadline (package lease's renew policy, Holder.RetryWait;
// the deadline is RenewDeadline after the last successful renewal was sent, so
// it can only come early). client-go measures its deadline from the
// start of each round of retries instead, which lets a leader hold on for up to
// RetryPeriod + RenewDeadline after its last renewal; here it is RenewDeadline,
// leaving the work LeaseDuration − RenewDeadline (5 s) to stop before a standby
// can possibly take over.
//
// A renewal (lease.Holder.Renew) updates the Lease it last wrote, with no read
// first; if someone wrote since, it reads the Lease and goes on only if it still
// names this replica, identity and instance. Another holder found there ends the
// leadership at once.
func (e *Elector) renewLoop(ctx context.Context, workDone <-chan struct{}) error {
	wait := e.cfg.RetryPeriod
	var lastErr error
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-workDone:
			return nil
		case <-e.clock.After(wait):
		}
		now := e.clock.Now()
		if !e.holder.Holds(now) {
			return fmt.Errorf("%w: not renewed for %s (last error: %v)", ErrLeadershipLost, now.Sub(e.holder.Renewed()), lastErr)
		}
		// The request may not outlive the deadline, or a hung connection would keep
		// us leading past it (lease.Holder.RenewTimeout). (A timeout, not a
		// deadline: contexts follow the wall clock, and e.clock may be a fake one.)
		rctx, cancel := context.WithTimeout(ctx, e.holder.RenewTimeout(now, e.cfg.RetryPeriod))
		written, err := e.holder.Renew(rctx)
		cancel()
		var held *lease.HeldError
		switch {
		case err == nil:
			e.tried(nil)
			e.observeWritten(written)
			e.setLeading(true, e.holder.Renewed())
			wait, lastErr = e.cfg.RetryPeriod, nil
			continue
		case errors.As(err, &held):
			e.observe(e.observer.See(held.Lease, e.clock.Now()))
			return fmt.Errorf("%w: %v", ErrLeadershipLost, err)
		case ctx.Err() != nil:
			return nil // the renewal failed because we are shutting down
		}
		lastErr = err
		e.tried(err)
		e.cfg.Logger.Warn("renewal failed; will try again", "lease", e.cfg.Namespace+"/"+e.cfg.Name, "err", err, "failures", e.Status().Failures)
		// Package lease's renew policy: a RetryPeriod, ending at the
		// deadline if that comes sooner; past it, leadership is lost now.
		now = e.clock.Now()
		if !e.holder.Holds(now) {
			return fmt.Errorf("%w: not renewed for %s (last error: %v)", ErrLeadershipLost, now.Sub(e.holder.Renewed()), lastErr)
		}
		wait = e.holder.RetryWait(now, e.cfg.RetryPeriod)
	}
}
