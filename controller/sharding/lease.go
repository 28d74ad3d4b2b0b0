package sharding

import (
	"context"
	"errors"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/lease"
)

// member is another member's Lease as this replica last read it (package
// lease's Observer: when its record last changed on this replica's clock, and
// the duration honoured), and the ranges it claims.
type member struct {
	lease.Sighting
	claim Set
}

func (m member) holder() string { return m.Lease.Spec.HolderIdentity }
func (m member) name() string   { return m.Lease.Metadata.Name }

// renew writes this replica's Lease (package lease's Holder): holder,
// duration, a fresh renewTime, and the ranges it claims in the
// RangesAnnotation, which the Holder's Stamp sets. Its requests share one
// timeout, package lease's renew policy (Holder.RenewTimeout): what is left of
// the renew deadline, or a RetryPeriod once it has passed, so that a replica
// past its deadline can still come back. A success moves the
// gate's deadline to the Holder's, RenewDeadline after the write was sent; the
// gate admits nothing past it, however long a request takes.
//
// The Lease it finds may be another instance's (self.go): an earlier run of
// this identity, or a twin running now. Then it writes nothing over it but
// waits (errHeld) until the Lease has been left unrenewed for its duration.
func (s *Sharder) renew(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.holder.RenewTimeout(s.cfg.Clock.Now(), s.cfg.RetryPeriod))
	defer cancel()
	var err error
	if s.held != nil {
		err = s.reclaim(ctx)
	} else {
		_, err = s.holder.Renew(ctx)
	}
	var held *lease.HeldError
	if errors.As(err, &held) {
		s.hold(s.observer.See(held.Lease, s.cfg.Clock.Now()))
		return errHeld
	}
	if errors.Is(err, errHeld) {
		return err
	}
	if err != nil {
		return s.fail(ctx, "renew Lease "+s.cfg.Namespace+"/"+s.name, err)
	}
	if s.gate.renewed(s.holder.Deadline()) {
		// The Manager forgets a Request the gate refuses, as another
		// replica's; those refused while the deadline had passed were this
		// replica's: their ranges' cached objects are queued again.
		s.serving(s.gate.get())
	}
	s.ok()
	return nil
}

// stamp sets what a member's Lease says besides its holder's record: the
// group label that finds it, and the ranges claimed.
func (s *Sharder) stamp(m *apiclient.ObjectMeta) {
	m.Labels[GroupLabel] = s.cfg.Name
	m.Annotations[RangesAnnotation] = s.claimed().String()
}

// readMembers lists the group's Leases (a consistent read, from etcd's
// latest state, never a cache: the claim protocol needs every write that came
// before it) and returns the other live members by Lease name. A member is
// live while its Lease names a holder and has changed within the duration
// honoured (package lease: on this replica's clock, what the Lease says capped
// at twice this group's LeaseDuration); a claim it cannot parse is logged and
// taken as the whole space, so that nobody takes over from a member whose
// claim nobody can read, for as long as that Lease is live. A Lease that
// cannot be decoded at all (an unreadable renewTime) is logged by the
// Observer, once per version, and skipped: one bad Lease is never a reason to
// read no members. This replica's own Lease, written by another instance,
// means it is held (self.go).
func (s *Sharder) readMembers(ctx context.Context) (map[string]member, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.RenewDeadline)
	defer cancel()
	list, err := s.rc.List(ctx, apiclient.ListOptions{LabelSelector: GroupLabel + "=" + s.cfg.Name})
	if err != nil {
		return nil, s.fail(ctx, "list the members' Leases in "+s.cfg.Namespace, err)
	}
	now := s.cfg.Clock.Now()
	live := map[string]member{}
	wasLive := s.live
	s.live, s.lostAt = map[string]bool{}, time.Time{}
	for _, seen := range s.observer.SeeList(list.Items, now) {
		name := seen.Lease.Metadata.Name
		switch {
		case name == s.name:
			if !s.holder.Owns(seen.Lease) {
				s.hold(seen) // renewed by someone else since this replica's write
			}
			continue
		case seen.Err != nil, seen.Lease.Spec.HolderIdentity == "":
			continue
		}
		claim, err := Parse(seen.Lease.Metadata.Annotations[RangesAnnotation])
		if err != nil {
			s.cfg.Logger.Warn("sharding: a member's Lease claims what cannot be read; taking it as everything", "lease", name, "error", err)
			claim = Set{Full}
		}
		m := member{Sighting: seen, claim: claim}
		if seen.Held(now) {
			live[name], s.live[name] = m, true
		} else if wasLive[name] && (s.lostAt.IsZero() || seen.Since.Before(s.lostAt)) {
			// Live at the last read, dead now: the hand-over it causes is
			// timed from its last renewal seen.
			s.lostAt = seen.Since
		}
		if seen.Unchanged(now) > 2*seen.Honoured {
			// A member that crashed leaves its Lease behind; whoever sees it
			// dead for a second lease duration deletes it. Were it alive after
			// all (cut off, not dead), it stopped serving at its renew deadline
			// and writes its Lease anew when it can.
			// The precondition keeps a Lease renewed since this read.
			pre := &apiclient.Preconditions{ResourceVersion: seen.Lease.Metadata.ResourceVersion}
			if err := s.rc.Delete(ctx, name, apiclient.DeleteOptions{Preconditions: pre}); err == nil {
				s.cfg.Logger.Info("sharding: deleted a dead member's Lease", "lease", name, "member", m.holder())
			}
		}
	}
	s.ok()
	return live, nil
}

// watchLeases wakes Run whenever a member's Lease changes, so that a release
// or a new member is acted on at once rather than at the next round. It is
// only a wake-up: every decision reads the Leases afresh. A failed watch is
// started again after a RetryPeriod; the rounds go on meanwhile.
func (s *Sharder) watchLeases(ctx context.Context, wake chan<- struct{}) {
	for ctx.Err() == nil {
		w, err := s.rc.Watch(ctx, apiclient.WatchOptions{ListOptions: apiclient.ListOptions{LabelSelector: GroupLabel + "=" + s.cfg.Name}})
		if err == nil {
			for {
				ev, err := w.Next()
				if err != nil {
					break
				}
				if ev.Object != nil && ev.Object.Metadata.Name == s.name {
					continue // our own renewals
				}
				select {
				case wake <- struct{}{}:
				default:
				}
			}
			w.Close()
		}
		select {
		case <-ctx.Done():
		case <-s.cfg.Clock.After(s.cfg.RetryPeriod):
		}
	}
}

// leave is a clean stop: serve nothing, wait for the reconciles running (up to
// LeaseDuration, renewing the Lease meanwhile so that its claim holds while
// they run), and delete the Lease so the others take every range at their
// next read, which the deletion wakes. If reconciles are still running at the
// end of the wait, the Lease is left to expire instead. A Lease held by
// another process is not this replica's to delete (the Holder deletes only
// its own).
func (s *Sharder) leave() {
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.LeaseDuration)
	defer cancel()
	ours := func() bool { return s.held == nil && s.holder.Written() != nil }
	for {
		wait, stop := context.WithTimeout(ctx, s.cfg.RetryPeriod)
		err := s.gate.narrow(wait, nil)
		stop()
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			s.cfg.Logger.Warn("sharding: reconciles still running at shutdown; leaving the Lease to expire", "lease", s.name)
			return
		}
		if ours() {
			_ = s.renew(ctx)
		}
	}
	s.setClaim(nil)
	if !ours() {
		return
	}
	if err := s.holder.Delete(ctx); err != nil {
		s.cfg.Logger.Warn("sharding: could not delete the Lease; the others take over when it expires", "lease", s.name, "error", err)
		return
	}
	s.cfg.Logger.Info("sharding: left the group", "lease", s.name)
}
