package sharding

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/clock"
)

// Issue 29: two `run foo --shards --identity r1` each served every range, the
// second writing over the first's Lease. Now the second finds the Lease
// written by another instance and waits; the first serves alone. When the
// first stops renewing, the second takes the Lease over once it has been left
// unrenewed for its duration; the first, back, finds it held and serves
// nothing. At no round do both serve.
func TestRound_two_replicas_with_one_identity_never_serve_at_once(t *testing.T) {
	srv := apitest.NewServer(nil)
	srv.CreateNamespaces("ops")
	defer srv.Close()
	clock := clock.NewFake()
	first := roundSharder(t, srv, "r1", srv.Transport(), clock)
	twin := roundSharder(t, srv, "r1", srv.Transport(), clock)
	both := func(what string) {
		t.Helper()
		if a, b := first.gate.get(), twin.gate.get(); a.Overlaps(b) {
			t.Fatalf("%s: both serve: %v and %v", what, a, b)
		}
	}
	roundReturns(t, first, "the first starts")
	roundReturns(t, twin, "its twin starts")
	both("both started")
	if !first.gate.get().Equal(Set{Full}) {
		t.Fatalf("the first serves %v, want everything", first.gate.get())
	}
	if st := twin.Status(); !st.Serving.Empty() || !strings.Contains(st.Waiting, `two replicas run with identity "r1"`) {
		t.Fatalf("the twin serves %v, waiting %q; want nothing served and the reason said", st.Serving, st.Waiting)
	}
	for range 5 { // the first renews; the twin keeps waiting
		clock.Step(2 * time.Second)
		roundReturns(t, first, "the first renews")
		roundReturns(t, twin, "the twin waits")
		both("while the first renews")
	}

	// The first stops renewing (cut off): past its renew deadline it serves
	// nothing; 15 s after its last renewal the twin takes over.
	clock.Step(11 * time.Second)
	if _, _, ok := first.Admit(context.Background(), objectIn(Full)); ok {
		t.Fatal("the first admits a reconcile past its renew deadline")
	}
	roundReturns(t, twin, "15 s unrenewed, not yet seen so")
	clock.Step(4 * time.Second)
	roundReturns(t, twin, "the twin takes over")
	if st := twin.Status(); !st.Serving.Equal(Set{Full}) || st.Waiting != "" {
		t.Fatalf("the twin serves %v, waiting %q, after the first left its Lease unrenewed for 15 s", st.Serving, st.Waiting)
	}
	roundReturns(t, first, "the first is back")
	both("the first is back")
	if st := first.Status(); !st.Serving.Empty() || st.Waiting == "" {
		t.Fatalf("the first, back, serves %v, waiting %q; want nothing and the reason", st.Serving, st.Waiting)
	}
}

// A replica that finds its Lease renewed by another process stops at once:
// nothing more is admitted, and the contexts of the reconciles running are
// cancelled (that process may be reconciling the same objects).
func TestRound_a_Lease_renewed_by_someone_else_stops_the_replica_at_once(t *testing.T) {
	srv, clock, a, rctx := aloneReconciling(t)
	other := roundSharder(t, srv, "a", srv.Transport(), clock) // another process, identity "a"
	l, err := leases(other).Get(context.Background(), other.name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.holder.Take(context.Background(), l); err != nil {
		t.Fatal(err)
	}
	clock.Step(2 * time.Second)
	roundReturns(t, a, "a renews a Lease someone else wrote")
	stopped(t, a, rctx, "its Lease held by another")
	if st := a.Status(); !strings.Contains(st.Waiting, "its own Lease") {
		t.Errorf("a waits %q; want it to say its Lease is held", st.Waiting)
	}
}

// Issue 29: a Lease with leaseDurationSeconds 3600 that never renews and
// claims every range stalled every replica for an hour (0 of 10 Foos
// reconciled), with the wait logged at DEBUG only. The duration honoured is
// capped at twice the group's LeaseDuration (30 s here), and Status says on
// whom the replica waits.
func TestRound_a_stale_member_claiming_everything_is_honoured_for_twice_the_lease_duration(t *testing.T) {
	srv := apitest.NewServer(nil)
	srv.CreateNamespaces("ops")
	defer srv.Close()
	clock := clock.NewFake()
	a := roundSharder(t, srv, "a", srv.Transport(), clock)
	writeMember(t, a, clock, "z", Set{Full})
	l, err := leases(a).Get(context.Background(), leaseName("g", "z"))
	if err != nil {
		t.Fatal(err)
	}
	l.Spec.LeaseDurationSeconds = 3600
	if _, err := leases(a).Update(context.Background(), l, apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	roundReturns(t, a, "z claims everything")
	if st := a.Status(); !st.Serving.Empty() || !strings.Contains(st.Waiting, `for member "z" (Lease g-shard-z) to release`) {
		t.Fatalf("a serves %v, waiting %q; want nothing, waiting on z", st.Serving, st.Waiting)
	}
	clock.Step(31 * time.Second) // z unchanged for longer than 2 × 15 s
	roundReturns(t, a, "z's claim is no longer honoured")
	roundReturns(t, a, "a takes its share")
	if st := a.Status(); !st.Serving.Equal(Set{Full}) || st.Waiting != "" {
		t.Fatalf("a serves %v, waiting %q, 31 s after z last changed; want everything", st.Serving, st.Waiting)
	}
}

// Issue 29: one Lease whose renewTime could not be decoded made the member
// list unreadable, so no replica served anything. It is skipped now. (The
// server keeps a renewTime at the end of 9999 an hour west of Greenwich as
// year 10000, which the lease package cannot read.)
func TestRound_an_unreadable_Lease_is_skipped(t *testing.T) {
	srv := apitest.NewServer(nil)
	srv.CreateNamespaces("ops")
	defer srv.Close()
	clock := clock.NewFake()
	a := roundSharder(t, srv, "a", srv.Transport(), clock)
	writeMember(t, a, clock, "b", nil)
	bad := `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"g-shard-x","namespace":"ops","labels":{"` + GroupLabel + `":"g"}},
		"spec":{"holderIdentity":"x","leaseDurationSeconds":15,"renewTime":"9999-12-31T23:30:00.000000-01:00"}}`
	if _, err := srv.Add(apiclient.Leases, bad); err != nil {
		t.Fatal(err)
	}
	roundReturns(t, a, "a reads b and an unreadable Lease")
	roundReturns(t, a, "a takes its half")
	if st := a.Status(); !st.Serving.Equal(Assign([]string{"a", "b"})["a"]) || st.LastError != "" {
		t.Fatalf("a serves %v (last error %q); want its half of {a, b}", st.Serving, st.LastError)
	}
}
