package sharding

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/leaderelection"
)

// renew writes this replica's Lease: holder, duration, a fresh renewTime, and
// the ranges it claims in the RangesAnnotation. It creates the Lease the first
// time, and updates it at the resourceVersion it last wrote after that; when
// someone else wrote it meanwhile (Conflict), it reads it and writes again.
// Its requests share one timeout: what is left of the renew deadline, and at
// least a RetryPeriod, so that a replica past its deadline can still come
// back. A success moves the gate's deadline to RenewDeadline after the write
// was sent; the gate admits nothing past it, however long a request takes.
//
// The Lease it finds may be another instance's (self.go): an earlier run of
// this identity, or a twin running now. Then it writes nothing over it but
// waits (errHeld) until the Lease has been left unrenewed for its duration.
func (s *Sharder) renew(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, max(s.cfg.RetryPeriod, s.cfg.RenewDeadline-s.cfg.Clock.Now().Sub(s.lastRenew)))
	defer cancel()
	sent := s.cfg.Clock.Now()
	var written *leaderelection.Lease
	var err error
	switch {
	case s.held != nil:
		written, err = s.reclaim(ctx, sent)
	case s.lease == nil:
		written, err = s.leases.Create(ctx, s.record(sent), apiclient.WriteOptions{})
		if apiclient.IsAlreadyExists(err) { // this identity's Lease, from an earlier run or a twin
			written, err = s.rewrite(ctx, sent)
		}
	default:
		written, err = s.leases.Update(ctx, s.record(sent), apiclient.WriteOptions{})
		if apiclient.IsConflict(err) || apiclient.IsNotFound(err) {
			written, err = s.rewrite(ctx, sent)
		}
	}
	if errors.Is(err, errHeld) {
		return err
	}
	if err != nil {
		return s.fail(ctx, "renew Lease "+s.cfg.Namespace+"/"+s.name, err)
	}
	s.lease, s.lastRenew = written, sent
	s.gate.renewed(sent.Add(s.cfg.RenewDeadline))
	s.ok()
	return nil
}

// rewrite reads the Lease as the server has it and, if this instance wrote it
// last (someone else only labelled it, say), writes this replica's record over
// it; it creates it if it is gone. Written by another instance, the Lease is
// held (self.go): errHeld.
func (s *Sharder) rewrite(ctx context.Context, now time.Time) (*leaderelection.Lease, error) {
	cur, err := s.leases.Get(ctx, s.name)
	if apiclient.IsNotFound(err) {
		s.lease = nil
		return s.leases.Create(ctx, s.record(now), apiclient.WriteOptions{})
	}
	if err != nil {
		return nil, err
	}
	if instanceOf(cur) != s.instance {
		s.hold(cur)
		return nil, errHeld
	}
	s.lease = cur
	return s.leases.Update(ctx, s.record(now), apiclient.WriteOptions{})
}

// record is the Lease to write at now: the one last written (or read), with
// this replica's holder, duration, renewTime and claim.
func (s *Sharder) record(now time.Time) *leaderelection.Lease {
	var l leaderelection.Lease
	if s.lease != nil {
		l = *s.lease
	} else {
		l.APIVersion, l.Kind = "coordination.k8s.io/v1", "Lease"
		l.Metadata = apiclient.ObjectMeta{Name: s.name, Namespace: s.cfg.Namespace}
		l.Spec.AcquireTime = leaderelection.NewMicroTime(now)
	}
	labels := map[string]string{}
	for k, v := range l.Metadata.Labels {
		labels[k] = v
	}
	labels[GroupLabel] = s.cfg.Name
	annotations := map[string]string{}
	for k, v := range l.Metadata.Annotations {
		annotations[k] = v
	}
	annotations[RangesAnnotation] = s.claimed().String()
	annotations[InstanceAnnotation] = s.instance
	l.Metadata.Labels, l.Metadata.Annotations = labels, annotations
	l.Spec.HolderIdentity = s.cfg.Identity
	// Rounded up: the others must not count this replica gone sooner than
	// LeaseDuration.
	l.Spec.LeaseDurationSeconds = int32((s.cfg.LeaseDuration + time.Second - 1) / time.Second)
	l.Spec.RenewTime = leaderelection.NewMicroTime(now)
	return &l
}

// readMembers lists the group's Leases (a consistent read, from etcd's
// latest state, never a cache: the claim protocol needs every write that came
// before it) and returns the other live members' records by Lease name. A
// Lease is live while it has a holder and this replica has seen its record
// change within its leaseDurationSeconds, capped at twice this group's
// LeaseDuration (honoured); a claim it cannot parse is logged and taken as the
// whole space, so that nobody takes over from a member whose claim nobody can
// read, for as long as that Lease is live. A Lease that cannot be decoded at
// all (an unreadable renewTime) is logged, once per version, and skipped: one
// bad Lease is never a reason to read no members. This replica's own Lease,
// written by another instance, means it is held (self.go).
func (s *Sharder) readMembers(ctx context.Context) (map[string]observed, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.RenewDeadline)
	defer cancel()
	list, err := s.cfg.Client.Resource(apiclient.Leases).Namespace(s.cfg.Namespace).List(ctx, apiclient.ListOptions{LabelSelector: GroupLabel + "=" + s.cfg.Name})
	if err != nil {
		return nil, s.fail(ctx, "list the members' Leases in "+s.cfg.Namespace, err)
	}
	now := s.cfg.Clock.Now()
	live := map[string]observed{}
	next := map[string]observed{}
	unreadable := map[string]string{}
	s.lostAt = time.Time{}
	for _, item := range list.Items {
		name := item.Metadata.Name
		var l leaderelection.Lease
		if err := json.Unmarshal(item.Raw(), &l); err != nil {
			unreadable[name] = item.Metadata.ResourceVersion
			if s.unreadable[name] != item.Metadata.ResourceVersion {
				s.cfg.Logger.Warn("sharding: a Lease of the group cannot be read; skipping it", "lease", name, "error", err)
			}
			continue
		}
		if name == s.name {
			if s.lease != nil && instanceOf(&l) != s.instance {
				s.hold(&l) // renewed by someone else since this replica's write
			}
			continue
		}
		if l.Spec.HolderIdentity == "" {
			continue
		}
		claim, err := Parse(l.Metadata.Annotations[RangesAnnotation])
		if err != nil {
			s.cfg.Logger.Warn("sharding: a member's Lease claims what cannot be read; taking it as everything", "lease", name, "error", err)
			claim = Set{Full}
		}
		o := observed{holder: l.Spec.HolderIdentity, lease: name, claim: claim, duration: s.honoured(&l), at: now}
		if l.Spec.RenewTime != nil {
			o.renew = l.Spec.RenewTime.String()
		}
		prev, seenBefore := s.seen[name]
		if seenBefore && prev.holder == o.holder && prev.renew == o.renew && prev.claim.Equal(o.claim) && prev.duration == o.duration {
			o.at = prev.at
		}
		age := now.Sub(o.at)
		o.live = age < o.duration
		next[name] = o
		if o.live {
			live[name] = o
		} else if seenBefore && prev.live && (s.lostAt.IsZero() || o.at.Before(s.lostAt)) {
			// Live at the last read, dead now: the hand-over it causes is
			// timed from its last renewal seen.
			s.lostAt = o.at
		}
		if age > 2*o.duration {
			// A member that crashed leaves its Lease behind; whoever sees it
			// dead for a second lease duration deletes it. Were it alive after
			// all (cut off, not dead), it stopped serving at its renew deadline
			// and writes its Lease anew when it can.
			// The precondition keeps a Lease renewed since this read.
			pre := &apiclient.Preconditions{ResourceVersion: l.Metadata.ResourceVersion}
			if err := s.leases.Delete(ctx, name, apiclient.DeleteOptions{Preconditions: pre}); err == nil {
				s.cfg.Logger.Info("sharding: deleted a dead member's Lease", "lease", name, "member", o.holder)
			}
		}
	}
	s.seen, s.unreadable = next, unreadable
	s.ok()
	return live, nil
}

// watchLeases wakes Run whenever a member's Lease changes, so that a release
// or a new member is acted on at once rather than at the next round. It is
// only a wake-up: every decision reads the Leases afresh. A failed watch is
// started again after a RetryPeriod; the rounds go on meanwhile.
func (s *Sharder) watchLeases(ctx context.Context, wake chan<- struct{}) {
	rc := s.cfg.Client.Resource(apiclient.Leases).Namespace(s.cfg.Namespace)
	for ctx.Err() == nil {
		w, err := rc.Watch(ctx, apiclient.WatchOptions{ListOptions: apiclient.ListOptions{LabelSelector: GroupLabel + "=" + s.cfg.Name}})
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
// end of the wait, the Lease is left to expire instead.
func (s *Sharder) leave() {
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.LeaseDuration)
	defer cancel()
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
		if s.lease != nil {
			_ = s.renew(ctx)
		}
	}
	s.setClaim(nil)
	if s.lease == nil {
		return
	}
	if err := s.leases.Delete(ctx, s.name, apiclient.DeleteOptions{}); err != nil && !apiclient.IsNotFound(err) {
		s.cfg.Logger.Warn("sharding: could not delete the Lease; the others take over when it expires", "lease", s.name, "error", err)
		return
	}
	s.cfg.Logger.Info("sharding: left the group", "lease", s.name)
}
