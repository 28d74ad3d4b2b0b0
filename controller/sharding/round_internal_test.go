package sharding

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/controller/lease"
)

// These tests drive one Sharder's rounds by hand, on the in-memory API server
// and a fake clock; the other members are Leases the test writes.

func roundSharder(t *testing.T, srv *apitest.Server, id string, rt http.RoundTripper, clock *clock.Fake) *Sharder {
	t.Helper()
	c, err := srv.Client(apiclient.Options{Transport: rt})
	if err != nil {
		t.Fatal(err)
	}
	// A renewal's requests are bounded by a RetryPeriod (200 ms) of real time,
	// and a client's first request opens a TLS connection, which under -race
	// on a loaded machine took longer (the round then served nothing, about
	// one run in 25): open it first.
	if _, err := c.Resource(apiclient.Leases).Namespace("ops").List(context.Background(), apiclient.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{
		Member: lease.Member{Client: c, Namespace: "ops", Identity: id, Clock: clock, LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 200 * time.Millisecond},
		Name:   "g",
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// leases is a client for the Leases of s's group, for the test's own moves.
func leases(s *Sharder) apiclient.Typed[lease.Lease] {
	return apiclient.NewTyped[lease.Lease](s.cfg.Client).Namespace(s.cfg.Namespace)
}

// writeMember writes the Lease of another member, id, claiming claim, renewed
// at the clock's now.
func writeMember(t *testing.T, s *Sharder, clock *clock.Fake, id string, claim Set) {
	t.Helper()
	ctx := context.Background()
	name := leaseName(s.cfg.Name, id)
	l, err := leases(s).Get(ctx, name)
	if apiclient.IsNotFound(err) {
		l = &lease.Lease{}
		l.APIVersion, l.Kind = "coordination.k8s.io/v1", "Lease"
		l.Metadata = apiclient.ObjectMeta{Name: name, Namespace: s.cfg.Namespace, Labels: map[string]string{GroupLabel: s.cfg.Name}}
	} else if err != nil {
		t.Fatal(err)
	}
	l.Metadata.Annotations = map[string]string{RangesAnnotation: claim.String()}
	l.Spec.HolderIdentity = id
	l.Spec.LeaseDurationSeconds = 15
	l.Spec.RenewTime = lease.NewMicroTime(clock.Now())
	if l.Metadata.ResourceVersion == "" {
		_, err = leases(s).Create(ctx, l, apiclient.WriteOptions{})
	} else {
		_, err = leases(s).Update(ctx, l, apiclient.WriteOptions{})
	}
	if err != nil {
		t.Fatal(err)
	}
}

// objectIn is an object whose UID hashes into r.
func objectIn(r Range) *apiclient.Object {
	for i := 0; ; i++ {
		if uid := fmt.Sprintf("uid-%d", i); r.Contains(Hash(uid)) {
			return &apiclient.Object{Metadata: apiclient.ObjectMeta{UID: uid}}
		}
	}
}

// roundReturns runs one round and fails if it has not returned within 10 s
// (its own waits are a RetryPeriod, 200 ms, each).
func roundReturns(t *testing.T, s *Sharder, what string) {
	t.Helper()
	done := make(chan struct{})
	go func() { s.round(context.Background()); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: the round has not returned in 10 s (no renewals meanwhile); serving %v", what, s.gate.get())
	}
}

// A member joins and leaves while a reconcile of the range it would have
// taken still runs: the release timed out, and serving the old range again
// must not wait for that reconcile (the round would stop renewing the Lease,
// and the others would take the range over while this replica admits it).
func TestRound_a_join_and_leave_during_a_slow_reconcile_do_not_stop_the_rounds(t *testing.T) {
	srv := apitest.NewServer(nil)
	srv.CreateNamespaces("ops")
	defer srv.Close()
	clock := clock.NewFake()
	b := roundSharder(t, srv, "b", srv.Transport(), clock)
	two := Assign([]string{"a", "b"})
	writeMember(t, b, clock, "a", two["a"])
	roundReturns(t, b, "a and b")
	_, release, ok := b.Admit(context.Background(), objectIn(two["b"][0]))
	if !ok {
		t.Fatalf("b serves %v; an object of its half was refused", b.gate.get())
	}
	defer release()

	writeMember(t, b, clock, "j", nil) // j joins: b must release part of its half, and cannot yet
	roundReturns(t, b, "j joined")
	if err := leases(b).Delete(context.Background(), leaseName("g", "j"), apiclient.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	roundReturns(t, b, "j left")
	if !b.gate.get().Equal(two["b"]) {
		t.Errorf("b serves %v, want its half %v again", b.gate.get(), two["b"])
	}
}

// failPut fails the Nth PUT of a Lease (after the request reached nothing).
type failPut struct {
	next http.RoundTripper
	n    atomic.Int32
}

func (f *failPut) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodPut && strings.Contains(r.URL.Path, "/leases/") && f.n.Add(-1) == 0 {
		return nil, errors.New("PUT failed (test)")
	}
	return f.next.RoundTrip(r)
}

// A claim whose write failed is not a claim: the next round must claim again
// and confirm it by a LIST, not serve it. Here a saw {a, b} and claimed the
// lower half, but the write failed; b meanwhile saw {a, b, c} and claimed the
// middle third (a's Lease on the server claimed nothing); then c left.
func TestRound_a_claim_whose_write_failed_is_never_served_unconfirmed(t *testing.T) {
	srv := apitest.NewServer(nil)
	srv.CreateNamespaces("ops")
	defer srv.Close()
	clock := clock.NewFake()
	rt := &failPut{next: srv.Transport()}
	a := roundSharder(t, srv, "a", rt, clock)
	writeMember(t, a, clock, "b", nil)
	rt.n.Store(1) // a's first PUT is its claim
	roundReturns(t, a, "a claims, the write fails")
	if !a.gate.get().Empty() {
		t.Fatalf("a serves %v after its claim's write failed", a.gate.get())
	}

	bClaim := Assign([]string{"a", "b", "c"})["b"]
	writeMember(t, a, clock, "c", nil)
	writeMember(t, a, clock, "b", bClaim)
	if err := leases(a).Delete(context.Background(), leaseName("g", "c"), apiclient.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	clock.Step(time.Second)
	writeMember(t, a, clock, "b", bClaim)
	roundReturns(t, a, "c left")
	if a.gate.get().Overlaps(bClaim) {
		t.Errorf("a serves %v, overlapping b's confirmed claim %v", a.gate.get(), bClaim)
	}
}

// Two identities are two Leases, however they are spelled; a valid name stays
// as it is (the Lease a user looks for is named after the identity). Issue 29:
// "Pod" and "pod-f406744c" shared the Lease g-shard-pod-f406744c.
func TestLeaseName_keeps_identities_apart(t *testing.T) {
	long := strings.Repeat("x", 300)
	names := map[string]string{}
	for _, id := range []string{"r1", "pod", "Pod", "pod-f406744c", "a_b", "a-b", "host_1a2b3c4d", "host-1a2b3c4d", long, long + "y"} {
		n := leaseName("g", id)
		if other, ok := names[n]; ok {
			t.Errorf("%.40q and %.40q share the Lease %.60q", other, id, n)
		}
		names[n] = id
		if len(n) > 253 || strings.Trim(n, "abcdefghijklmnopqrstuvwxyz0123456789-.") != "" {
			t.Errorf("leaseName(%q) = %q: not a valid object name", id, n)
		}
	}
	if n := leaseName("g", "r1"); n != "g-shard-r1" {
		t.Errorf("leaseName(r1) = %q, want g-shard-r1", n)
	}
}

// The renew deadline is watched on a goroutine of its own: a reconcile still
// running when it passes has its context cancelled even though no round runs
// (one could be stuck in a slow request).
func TestRound_the_renew_deadline_cancels_running_reconciles_without_a_round(t *testing.T) {
	_, clock, a, rctx := aloneReconciling(t)
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); a.watchDeadline(ctx) }()
	defer func() { stop(); <-done }()
	clock.BlockUntilWaiters(1)
	clock.Step(10 * time.Second) // RenewDeadline since the renewal was sent
	stopped(t, a, rctx, "10 s past the renew deadline")
}

// aloneReconciling starts a replica "a" alone on an in-memory server, and
// admits one reconcile, whose context it returns (released when the test ends).
func aloneReconciling(t *testing.T) (*apitest.Server, *clock.Fake, *Sharder, context.Context) {
	t.Helper()
	srv := apitest.NewServer(nil)
	srv.CreateNamespaces("ops")
	t.Cleanup(srv.Close)
	clock := clock.NewFake()
	a := roundSharder(t, srv, "a", srv.Transport(), clock)
	roundReturns(t, a, "a alone")
	rctx, release, ok := a.Admit(context.Background(), objectIn(Full))
	if !ok {
		t.Fatalf("a serves %v; refused", a.gate.get())
	}
	t.Cleanup(release)
	return srv, clock, a, rctx
}

// stopped fails unless the reconcile's context rctx is cancelled (within 10 s:
// context.AfterFunc cancels on a goroutine of its own) and a admits nothing.
func stopped(t *testing.T, a *Sharder, rctx context.Context, when string) {
	t.Helper()
	select {
	case <-rctx.Done():
	case <-time.After(10 * time.Second): // a watchdog
		t.Errorf("%s: the running reconcile's context is live", when)
	}
	if _, _, ok := a.Admit(context.Background(), objectIn(Full)); ok {
		t.Errorf("%s: a admits a reconcile", when)
	}
}

// A reconcile refused because the renew deadline had passed (the replica
// renewed late: a loaded machine, a slow server) is dropped by the Manager,
// which forgets a refused Request as another replica's. When the next
// renewal restores the gate, the ranges still served are handed to OnServe
// again, so that their cached objects are queued once more. Found by the
// Manager's sharding test on a loaded machine: 38 of 40 objects reconciled,
// two refused 255 ms past a 1 s deadline and never again.
func TestRound_a_late_renewal_serves_again_what_the_lapse_refused(t *testing.T) {
	_, clock, a, _ := aloneReconciling(t)
	var served []Set
	a.OnServe(func(newly Set) { served = append(served, newly) })

	clock.Step(10 * time.Second) // RenewDeadline since the last renewal was sent: the gate lapses
	if _, _, ok := a.Admit(context.Background(), objectIn(Full)); ok {
		t.Fatal("admitted past the renew deadline")
	}
	roundReturns(t, a, "a renews late")
	if len(served) != 1 || !served[0].Equal(Set{Full}) {
		t.Fatalf("OnServe calls after the late renewal: %v; want one, with the ranges served (%v)", served, Set{Full})
	}
	roundReturns(t, a, "a renews in time")
	if len(served) != 1 {
		t.Fatalf("OnServe calls after a renewal in time: %v; want none more", served)
	}
}
