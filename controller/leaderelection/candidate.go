package leaderelection

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/kubewire/kubewire/apiclient"
)

// acquire is the candidate's loop: try to take the Lease now, then again after each
// wait, until it is ours (true) or ctx is done (false).
//
// A wait is RetryPeriod stretched by up to JitterFactor, or less: when the lease
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
			log.Info("acquired lease", "transitions", e.lease.Spec.LeaseTransitions)
			return true
		case err != nil && ctx.Err() == nil:
			// A Warn, each time: a Lease that cannot be read or written (its
			// namespace missing, the RBAC rule missing) keeps every replica a
			// standby, and would otherwise be silent.
			log.Warn("could not read or write the lease; will try again", "err", err, "failures", e.Status().Failures)
		case err == nil && e.lease != nil:
			log.Debug("lease held by another replica", "holder", e.lease.Spec.HolderIdentity, "expires", e.expiry())
		}

		wait := jittered(e.cfg.RetryPeriod)
		if e.lease != nil && e.lease.Spec.HolderIdentity != "" {
			if untilExpiry := e.expiry().Sub(e.clock.Now()); untilExpiry > 0 && untilExpiry < wait {
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
// as holder if nobody holds it, its holder has let it expire, or it is ours already.
// It reports whether the Lease is now ours; err is for a failed request, never for
// "someone else holds it" or "someone else was faster", which are the normal
// answers of an election.
func (e *Elector) tryAcquire(ctx context.Context) (bool, error) {
	now := e.clock.Now()
	cur, err := e.leases.Get(ctx, e.cfg.Name)
	if apiclient.IsNotFound(err) {
		return e.create(ctx, now)
	}
	if err != nil {
		return false, err
	}
	e.observe(cur)

	holder := cur.Spec.HolderIdentity
	if holder != "" && holder != e.cfg.Identity && e.clock.Now().Before(e.expiry()) {
		return false, nil // held, and renewed recently enough as far as we can see
	}

	// The update carries cur's resourceVersion: if any other candidate wrote the
	// Lease since our Get, the server answers Conflict and only one of us wins.
	next := *cur
	next.Spec = e.record(cur.Spec, now)
	written, err := e.leases.Update(ctx, &next, apiclient.WriteOptions{})
	if apiclient.IsConflict(err) {
		return false, nil // another candidate was faster; we will read its write next time
	}
	if err != nil {
		return false, err
	}
	e.observe(written)
	e.setLeading(true, now)
	return true, nil
}

// create makes the Lease with ourselves as holder. When two candidates find no
// Lease at once, both create, and the server lets exactly one succeed.
func (e *Elector) create(ctx context.Context, now time.Time) (bool, error) {
	l := &Lease{
		TypeMeta: apiclient.TypeMeta{APIVersion: leaseAPIVersion, Kind: leaseKind},
		Metadata: apiclient.ObjectMeta{Name: e.cfg.Name, Namespace: e.cfg.Namespace},
		Spec:     e.record(LeaseSpec{}, now),
	}
	l.Spec.LeaseTransitions = 0 // a new Lease has had no transition yet
	written, err := e.leases.Create(ctx, l, apiclient.WriteOptions{})
	if apiclient.IsAlreadyExists(err) {
		return false, nil // another candidate created it first
	}
	if err != nil {
		return false, err
	}
	e.observe(written)
	e.setLeading(true, now)
	return true, nil
}

// jittered returns d stretched by a random fraction of up to JitterFactor of
// itself: d to 2.2·d.
func jittered(d time.Duration) time.Duration {
	return d + time.Duration(rand.Float64()*JitterFactor*float64(d))
}
