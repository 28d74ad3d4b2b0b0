package sharding

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/leaderelection"
)

// A member cannot be impersonated, nor outlive its word.
//
// Each Sharder writes, besides its identity, an instance of its own into its
// Lease (InstanceAnnotation: random, new with every process). Two processes
// given one identity (a Deployment manifest with a fixed --identity and three
// replicas), or two identities whose Lease names meet, would otherwise both
// renew one Lease, each read no other member, and each serve the whole hash
// space (issue 29). Now the instance tells them apart:
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
// its own LeaseDuration (30 s with the defaults): a Lease that says 3600 s, or
// 2147483647, and never renews would otherwise hold its claimed ranges, and
// every replica waiting on them, for that long.

// InstanceAnnotation holds the writing process's instance on a member's Lease.
const InstanceAnnotation = "kubewire.io/shard-instance"

// errHeld is what renew returns while another instance holds this replica's
// Lease: not a failed request, a wait.
var errHeld = errors.New("sharding: this replica's Lease is held by another process")

// held is this replica's Lease as another instance wrote it, and when this
// replica first saw it so: it takes the Lease over once it has stayed so for
// its (capped) duration.
type held struct {
	lease *leaderelection.Lease
	since time.Time
}

// newInstance is a process's instance: 64 random bits, in hex.
func newInstance() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // crypto/rand.Read does not fail on supported platforms
	return hex.EncodeToString(b)
}

// instanceOf is the instance that last wrote l; "" for a Lease written before
// instances were (or by hand).
func instanceOf(l *leaderelection.Lease) string {
	return l.Metadata.Annotations[InstanceAnnotation]
}

// honoured is how long another member's Lease is taken as live after its last
// change: what it says, capped at twice this group's LeaseDuration.
func (s *Sharder) honoured(l *leaderelection.Lease) time.Duration {
	return min(time.Duration(l.Spec.LeaseDurationSeconds)*time.Second, 2*s.cfg.LeaseDuration)
}

// hold notes that another instance holds this replica's Lease, as cur says:
// nothing more is admitted, the running reconciles' contexts are cancelled,
// the claim is forgotten, and the next rounds wait for cur to go stale.
func (s *Sharder) hold(cur *leaderelection.Lease) {
	now := s.cfg.Clock.Now()
	if s.held != nil && s.held.lease.Metadata.ResourceVersion == cur.Metadata.ResourceVersion {
		return // seen already
	}
	first := s.held == nil
	s.held = &held{lease: cur, since: now}
	s.lease = nil
	s.setClaim(nil)
	cancelled := s.gate.halt()
	why := "another process writes this replica's Lease: two replicas run with identity " + quote(s.cfg.Identity)
	if cur.Spec.HolderIdentity != s.cfg.Identity {
		why = "the Lease this replica's identity names is held by " + quote(cur.Spec.HolderIdentity) + ": two identities with one Lease name"
	}
	s.setWaiting("for its own Lease " + s.cfg.Namespace + "/" + s.name + ": " + why +
		"; it takes the Lease over once it is left unrenewed for " + s.honoured(cur).String())
	if first {
		s.cfg.Logger.Error("sharding: "+why+"; serving nothing until the other stops renewing it", "lease", s.name,
			"holder", cur.Spec.HolderIdentity, "instance", instanceOf(cur), "this", s.instance, "cancelled", cancelled)
		s.logServing(nil, 0)
	}
}

// reclaim is renew while another instance holds the Lease: it reads the
// Lease, and writes it only once it has not changed for its duration (or is
// gone, or is this instance's after all). errHeld while it waits.
func (s *Sharder) reclaim(ctx context.Context, sent time.Time) (*leaderelection.Lease, error) {
	cur, err := s.leases.Get(ctx, s.name)
	var written *leaderelection.Lease
	switch {
	case apiclient.IsNotFound(err):
		written, err = s.leases.Create(ctx, s.record(sent), apiclient.WriteOptions{})
	case err != nil:
		return nil, err
	default:
		if instanceOf(cur) != s.instance {
			s.hold(cur) // changed since it was first seen: the wait starts again
			if sent.Sub(s.held.since) < s.honoured(cur) {
				return nil, errHeld
			}
			s.cfg.Logger.Info("sharding: the other process left this replica's Lease unrenewed; taking it over",
				"lease", s.name, "holder", cur.Spec.HolderIdentity, "instance", instanceOf(cur), "after", s.honoured(cur))
		}
		// At cur's resourceVersion: a renewal in between makes this a
		// Conflict, and the wait goes on.
		s.lease = cur
		written, err = s.leases.Update(ctx, s.record(sent), apiclient.WriteOptions{})
	}
	if apiclient.IsConflict(err) || apiclient.IsAlreadyExists(err) {
		s.lease = nil
		return nil, errHeld // written meanwhile: the next read sees by whom
	}
	if err == nil {
		s.held = nil
		s.setWaiting("")
	}
	return written, err
}

// quote is %q for a name in a message.
func quote(s string) string { return `"` + s + `"` }
