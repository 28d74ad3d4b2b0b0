package leaderelection_test

import (
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
)

// The Leases these tests start from are written raw, as a person with kubectl
// edit or another program may leave them.

// stored adds a Lease to the server as raw JSON; spec is the spec's members.
func (c *cluster) stored(spec string) {
	c.t.Helper()
	raw := `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"` + name + `","namespace":"` + ns + `"},"spec":{` + spec + `}}`
	if _, err := c.srv.srv.Add(apiclient.Leases, raw); err != nil {
		c.t.Fatal(err)
	}
}

// Two processes given one identity (a Deployment's manifest with a fixed
// --identity) used to both lead: each found its identity in the Lease and
// renewed it as its own. The instance each writes tells them apart now: the
// second waits, and takes over only once the first has stopped renewing for
// the lease duration.
func TestElector_two_processes_with_one_identity_lead_one_at_a_time(t *testing.T) {
	c := newCluster(t)
	first := c.start("a")
	second := c.start("a")
	c.runFor(30*time.Second, func() {}) // cluster.work reports two at once
	if !first.e.IsLeader() || second.e.IsLeader() {
		t.Fatalf("after 30 s: first leads %v, second leads %v; want the first alone", first.e.IsLeader(), second.e.IsLeader())
	}

	if err := c.stop(first); err != nil { // a crash: no release
		t.Fatalf("Run = %v, want nil", err)
	}
	took := c.runUntil("led by the second", 30*time.Second, second.e.IsLeader)
	if took < 15*time.Second {
		t.Fatalf("the second took over %s after the first stopped, want the lease duration (15 s) at least", took)
	}
	if got, want := c.lease().Spec.LeaseTransitions, int32(1); got != want {
		t.Fatalf("leaseTransitions %d, want %d: another process took the Lease", got, want)
	}
}

// A Lease whose renewTime cannot be decoded (written by hand) kept every
// candidate a standby forever, warning at each read. kube-apiserver refuses
// a renewTime that is no micro-time ("yesterday": 400), but keeps one an
// hour west of Greenwich at the end of 9999 as year 10000, which the lease
// package cannot read. It is held by someone
// nobody can name until its resourceVersion has stayed unchanged for the
// candidate's own LeaseDuration; then it is written over.
func TestElector_takes_over_an_undecodable_lease_once_it_is_left_unchanged(t *testing.T) {
	c := newCluster(t)
	c.stored(`"holderIdentity":"x","leaseDurationSeconds":15,"renewTime":"9999-12-31T23:30:00.000000-01:00"`)
	b := c.start("b")
	took := c.runUntil("led by b", 30*time.Second, b.e.IsLeader)
	if took < 15*time.Second {
		t.Fatalf("b took the undecodable Lease after %s, want its LeaseDuration (15 s) at least", took)
	}
	if l := c.lease(); l.Spec.HolderIdentity != "b" || l.Spec.RenewTime == nil {
		t.Fatalf("lease spec %+v, want b's record", l.Spec)
	}
}

// A Lease that says 3600 s and is never renewed (its holder crashed) kept
// every standby waiting for an hour. Another holder's duration is honoured up
// to twice the standby's own LeaseDuration (package lease says why).
func TestElector_honours_another_holders_duration_up_to_twice_its_own(t *testing.T) {
	c := newCluster(t)
	c.stored(`"holderIdentity":"z","leaseDurationSeconds":3600,"renewTime":"2026-01-01T00:00:00.000000Z"`)
	b := c.start("b")
	took := c.runUntil("led by b", 40*time.Second, b.e.IsLeader)
	if took < 30*time.Second || took > 30*time.Second+4400*time.Millisecond {
		t.Fatalf("b took over after %s, want 30 s (twice its 15 s) and at most one jittered retry more", took)
	}
}
