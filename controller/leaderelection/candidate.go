package leaderelection

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/controller/lease"
)

// acquire is the candidate's loop: try to take the Lease now, then again after each
// wait, until it is ours (true) or ctx is done (false).
//
// A wait is RetryPeriod stretched by up to lease.JitterFactor, or less: when the lease
// we watch will expire sooner than that, we wake exactly then. client-go waits the
// full jittered period, so after a crash its standby may notice the expiry up to
// 4.4 s late; here the hand-over after a crash takes at most LeaseDuration plus
// one jittered wait (the time to see the last renewal), 19.4 s with the defaults.
func (e *Elector) acquire(ctx context.Context) bool {
	log := e.cfg.Logger.With("lease", e.cfg.Namespace+"/"+e.cfg.Name, "identity", e.cfg.Identity)
	for {
		ok, err := e.tryAcquire(ctx)
		if ctx.Err() == nil {
			e.tried(err)
		}
		switch {
		case ok:
			log.Info("acquired lease", "transitions", e.seen.Lease.Spec.LeaseTransitions)
			return true
		case err != nil && ctx.Err() == nil:
			// A Warn, each time: a Lease that cannot be read or written (its
			// namespace missing, the RBAC rule missing) keeps every replica a
			// standby, and would otherwise be silent.
			log.Warn("could not read or write the lease; will try again", "err", err, "failures", e.Status().Failures)
		case err == nil && e.seen.Lease != nil:
			log.Debug("lease held by another replica", "holder", e.seen.Lease.Spec.HolderIdentity, "expires", e.seen.Expiry())
		}

		wait := jittered(e.cfg.RetryPeriod)
		if e.seen.Held(e.clock.Now()) {
			if untilExpiry := e.seen.Expiry().Sub(e.clock.Now()); untilExpiry < wait {
				wait = untilExpiry
			}
		}
		select {
		case <-ctx.Done():
			return false
		case <-e.clock.After(wait):
		}
	}
}

// tryAcquire makes one attempt to take the Lease: read it, and write ourselves in
// as holder if nobody holds it, its holder has let it expire (on our clock), or it
// is ours already. It reports whether the Lease is now ours; err is for a failed
// request, never for "someone else holds it" or "someone else was faster", which
// are the normal answers of an election.
//
// A Lease that cannot be decoded is held by someone we cannot name, for our own
// LeaseDuration after its resourceVersion last changed; then it is written over
// like any expired Lease (package lease logs it, once per version).
func (e *Elector) tryAcquire(ctx context.Context) (bool, error) {
	obj, err := e.leases.Get(ctx, e.cfg.Name)
	var cur *lease.Lease // nil: there is none, create it
	switch {
	case apiclient.IsNotFound(err):
	case err != nil:
		return false, err
	default:
		e.observe(e.observer.SeeObject(obj, e.clock.Now()))
		if e.seen.Held(e.clock.Now()) && !e.holder.Owns(e.seen.Lease) {
			return false, nil // held, and renewed recently enough as far as we can see
		}
		cur = e.seen.Lease
	}

	// Take writes at cur's resourceVersion: if any other candidate wrote the Lease
	// since our Get, the server refuses, and only one of us wins.
	written, err := e.holder.Take(ctx, cur)
	if errors.Is(err, lease.ErrRace) {
		return false, nil // another candidate was faster; we will read its write next time
	}
	if err != nil {
		return false, err
	}
	e.observeWritten(written)
	e.setLeading(true, e.holder.Renewed())
	return true, nil
}

// jittered returns d stretched by a random fraction of up to lease.JitterFactor of
// itself: d to 2.2·d.
func jittered(d time.Duration) time.Duration {
	return clock.Jittered(d, lease.JitterFactor, rand.Float64())
}
