package leaderelection

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kubewire/kubewire/apiclient"
)

// errSupplanted: the Lease names another holder. Wrapped by renew.
var errSupplanted = errors.New("the lease names another holder")

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
		if rerr := e.release(ctx); rerr != nil {
			log.Info("could not release the lease; a standby will take over once it expires", "err", rerr)
		} else {
			log.Info("released lease")
		}
	}
	return nil
}

// renewLoop renews the Lease every RetryPeriod until ctx is done or the work
// returns (nil), or until leadership is lost (an error wrapping ErrLeadershipLost).
//
// After a failed renewal it tries again every RetryPeriod, until RenewDeadline has
// passed since the last success (measured from before that write was sent, so
// the deadline can only come early). client-go measures its deadline from the start
// of each round of retries instead, which lets a leader hold on for up to
// RetryPeriod + RenewDeadline after its last renewal; here it is RenewDeadline,
// leaving the work LeaseDuration − RenewDeadline (5 s) to stop before a standby
// can possibly take over.
func (e *Elector) renewLoop(ctx context.Context, workDone <-chan struct{}) error {
	renewed := e.Status().RenewedAt // when acquire wrote the Lease
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
		left := renewed.Add(e.cfg.RenewDeadline).Sub(now)
		if left <= 0 {
			return fmt.Errorf("%w: not renewed for %s (last error: %v)", ErrLeadershipLost, now.Sub(renewed), lastErr)
		}
		// The request may not outlive the deadline, or a hung connection would keep
		// us leading past it.
		rctx, cancel := context.WithTimeout(ctx, left)
		err := e.renew(rctx, now)
		cancel()
		switch {
		case err == nil:
			e.tried(nil)
			renewed = now
			e.setLeading(true, now)
			wait, lastErr = e.cfg.RetryPeriod, nil
			continue
		case errors.Is(err, errSupplanted):
			return fmt.Errorf("%w: %v", ErrLeadershipLost, err)
		case ctx.Err() != nil:
			return nil // the renewal failed because we are shutting down
		}
		lastErr = err
		e.tried(err)
		e.cfg.Logger.Warn("renewal failed; will try again", "lease", e.cfg.Namespace+"/"+e.cfg.Name, "err", err, "failures", e.Status().Failures)
		wait = min(e.cfg.RetryPeriod, renewed.Add(e.cfg.RenewDeadline).Sub(e.clock.Now()))
	}
}

// renew writes a fresh renewTime. It first updates the Lease as we last wrote it,
// with no read: while we lead nobody else should write, so that usually succeeds
// with one request instead of two. A Conflict means someone did write (NotFound,
// that someone deleted it); then we read the Lease, and go on only if it still
// names us.
func (e *Elector) renew(ctx context.Context, now time.Time) error {
	next := *e.lease
	next.Spec = e.record(e.lease.Spec, now)
	written, err := e.leases.Update(ctx, &next, apiclient.WriteOptions{})
	if err == nil {
		e.observe(written)
		return nil
	}
	if !apiclient.IsConflict(err) && !apiclient.IsNotFound(err) {
		return err
	}

	cur, err := e.leases.Get(ctx, e.cfg.Name)
	if apiclient.IsNotFound(err) {
		// Deleted under us (by hand, say). Nobody holds it, so recreating it is safe;
		// if another candidate recreated it first, the next Update finds out.
		ok, err := e.create(ctx, now)
		if err == nil && !ok {
			return fmt.Errorf("%w: the lease was deleted and recreated by another replica", errSupplanted)
		}
		return err
	}
	if err != nil {
		return err
	}
	e.observe(cur)
	if h := cur.Spec.HolderIdentity; h != e.cfg.Identity {
		return fmt.Errorf("%w (%q)", errSupplanted, h)
	}
	next = *cur
	next.Spec = e.record(cur.Spec, now)
	if written, err = e.leases.Update(ctx, &next, apiclient.WriteOptions{}); err != nil {
		return err
	}
	e.observe(written)
	return nil
}

// release gives the Lease up: no holder, a duration of one second, the transition
// count kept. A standby sees the empty holder at its next read and takes over at
// once, rather than waiting out LeaseDuration. ctx is done by now, so the writes
// get a context of their own, bounded by RenewDeadline.
func (e *Elector) release(ctx context.Context) error {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), e.cfg.RenewDeadline)
	defer cancel()
	now := e.clock.Now()
	released := func(l *Lease) *Lease {
		next := *l
		next.Spec.HolderIdentity = ""
		next.Spec.LeaseDurationSeconds = 1
		next.Spec.AcquireTime = NewMicroTime(now)
		next.Spec.RenewTime = NewMicroTime(now)
		return &next
	}
	written, err := e.leases.Update(rctx, released(e.lease), apiclient.WriteOptions{})
	if apiclient.IsConflict(err) {
		// Written since our last renewal: release only if it still names us.
		cur, gerr := e.leases.Get(rctx, e.cfg.Name)
		if gerr != nil {
			return gerr
		}
		e.observe(cur)
		if cur.Spec.HolderIdentity != e.cfg.Identity {
			return nil // not ours any more: nothing to release
		}
		written, err = e.leases.Update(rctx, released(cur), apiclient.WriteOptions{})
	}
	if err != nil {
		return err
	}
	e.observe(written)
	return nil
}
