package sharding

import (
	"context"
	"errors"
	"strconv"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/lease"
)

// A member cannot be impersonated, nor outlive its word.
//
// Each Sharder's Lease carries, besides its identity, the instance of the
// process that wrote it (package lease: lease.InstanceAnnotation, random, new
// with every process). Two processes given one identity (a Deployment manifest
// with a fixed --identity and three replicas), or two identities whose Lease
// names meet, would otherwise both renew one Lease, each read no other member,
// and each serve the whole hash space (issue 29). Now the instance tells them
// apart:
//
//   - A replica whose Lease exists when it starts, written by another
//     instance, does not write over it: that may be a live twin. It waits
//     until the Lease has not changed for its duration (the cap below
//     included), as for any member that died, and only then takes it over,
//     with the Lease's resourceVersion as a precondition.
//   - A replica that finds its Lease written by another instance — its renewal
//     conflicts, or its read of the members shows it — stops serving at once,
//     cancels its running reconciles, says so at ERROR, and waits the same way.
//
// Of two twins, then, one serves and the other waits; when the one serving
// stops renewing, the other takes over a lease duration later, as any member
// would take over its ranges.
//
// The duration a replica honours for another member's Lease is capped at twice
// its own LeaseDuration (30 s with the defaults; package lease, the rule
// leader election follows too): a Lease that says 3600 s, or 2147483647, and
// never renews would otherwise hold its claimed ranges, and every replica
// waiting on them, for that long.

// errHeld is what renew returns while another instance holds this replica's
// Lease: not a failed request, a wait.
var errHeld = errors.New("sharding: this replica's Lease is held by another process")

// hold notes that another instance holds this replica's Lease, as seen says:
// nothing more is admitted, the running reconciles' contexts are cancelled,
// the claim is forgotten, and the next rounds wait for the Lease to go stale.
func (s *Sharder) hold(seen lease.Sighting) {
	if s.held != nil && s.held.Since.Equal(seen.Since) {
		s.held = &seen
		return // seen already, unchanged
	}
	first := s.held == nil
	s.held = &seen
	s.setClaim(nil)
	cancelled := s.gate.halt()
	cur := seen.Lease
	why := "another process writes this replica's Lease: two replicas run with identity " + strconv.Quote(s.cfg.Identity)
	switch {
	case seen.Err != nil:
		why = "another writer left this replica's Lease undecodable"
	case cur.Spec.HolderIdentity != s.cfg.Identity:
		why = "the Lease this replica's identity names is held by " + strconv.Quote(cur.Spec.HolderIdentity) + ": two identities with one Lease name"
	}
	s.setWaiting("for its own Lease " + s.cfg.Namespace + "/" + s.name + ": " + why +
		"; it takes the Lease over once it is left unrenewed for " + seen.Honoured.String())
	if first {
		s.cfg.Logger.Error("sharding: "+why+"; serving nothing until the other stops renewing it", "lease", s.name,
			"holder", cur.Spec.HolderIdentity, "instance", lease.InstanceOf(cur), "cancelled", cancelled)
		s.logServing(nil, 0)
	}
}

// reclaim is renew while another instance holds the Lease: it reads the
// Lease, and takes it only once it has not changed for its duration (or is
// gone, or is this instance's after all). errHeld while it waits.
func (s *Sharder) reclaim(ctx context.Context) error {
	obj, err := s.rc.Get(ctx, s.name)
	var cur *lease.Lease // nil: gone, create it
	switch {
	case apiclient.IsNotFound(err):
	case err != nil:
		return err
	default:
		seen := s.observer.SeeObject(obj, s.cfg.Clock.Now())
		cur = seen.Lease
		if !s.holder.Owns(cur) {
			s.hold(seen) // changed since it was first seen: the wait starts again
			if seen.Held(s.cfg.Clock.Now()) {
				return errHeld
			}
			s.cfg.Logger.Info("sharding: the other process left this replica's Lease unrenewed; taking it over",
				"lease", s.name, "holder", cur.Spec.HolderIdentity, "instance", lease.InstanceOf(cur), "after", seen.Honoured)
		}
	}
	// At cur's resourceVersion: a renewal in between makes this a race lost,
	// and the wait goes on.
	if _, err := s.holder.Take(ctx, cur); errors.Is(err, lease.ErrRace) {
		return errHeld // written meanwhile: the next read sees by whom
	} else if err != nil {
		return err
	}
	s.held = nil
	s.setWaiting("")
	return nil
}
