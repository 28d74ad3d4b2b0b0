package leaderelection_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubewire/kubewire/controller/leaderelection"
	"github.com/kubewire/kubewire/controller/lease"
)

func TestElector_leader_that_cannot_renew_steps_down_at_the_renew_deadline(t *testing.T) {
	c := newCluster(t)
	a := c.start("a")
	b := c.start("b")
	c.runFor(4*time.Second, func() {})
	lastRenewal := since(c.lease().Spec.RenewTime)

	c.srv.Fail(503)
	took := c.runUntil("a stepped down", 30*time.Second, func() bool { return a.finished })
	if got, want := c.elapsed-lastRenewal, 10*time.Second; got != want {
		t.Fatalf("a stepped down %s after its last renewal, want the renew deadline, %s", got, want)
	}
	if !errors.Is(a.err, leaderelection.ErrLeadershipLost) || !strings.Contains(a.err.Error(), "503") {
		t.Fatalf("Run = %v, want ErrLeadershipLost naming the last error", a.err)
	}
	if !a.workEnded.Load() || !a.stopped.Load() || a.e.IsLeader() {
		t.Fatalf("a: work ended %v, onStoppedLeading %v, IsLeader %v", a.workEnded.Load(), a.stopped.Load(), a.e.IsLeader())
	}
	if b.e.IsLeader() {
		t.Fatalf("b leads after %s while the server fails", took)
	}

	// The server comes back. If b had read a's last renewal before the outage, the
	// lease is long expired for it and it takes over at its next read; if not, it
	// sees that renewal only now, and counts 15 s from now: it cannot know better.
	c.srv.Fail(0)
	if took := c.runUntil("led by b", 30*time.Second, b.e.IsLeader); took > 15*time.Second+4400*time.Millisecond {
		t.Fatalf("b took over %s after the server came back, want at most 15 s + one jittered retry", took)
	}
}

func TestElector_leader_that_finds_another_holder_steps_down_at_once(t *testing.T) {
	c := newCluster(t)
	a := c.start("a")
	stolen := c.lease()
	stolen.Spec.HolderIdentity = "intruder"
	c.srv.Put(stolen)

	c.runUntil("a stepped down", 2*time.Second, func() bool { return a.finished })
	if !errors.Is(a.err, leaderelection.ErrLeadershipLost) || !strings.Contains(a.err.Error(), `"intruder"`) {
		t.Fatalf("Run = %v, want ErrLeadershipLost naming the intruder", a.err)
	}
	reqs := c.srv.Requests()
	if got, want := reqs[len(reqs)-2:], []string{"PUT default/kubewire 409", "GET default/kubewire 200"}; !slices.Equal(got, want) {
		t.Fatalf("last requests %q, want %q", got, want)
	}
	if got, want := c.lease().Spec.HolderIdentity, "intruder"; got != want {
		t.Fatalf("holder %q, want %q: the loser must not write", got, want)
	}
}

func TestElector_work_that_returns_ends_the_leadership(t *testing.T) {
	c := newCluster(t)
	e, err := leaderelection.New(leaderelection.Config{
		Member:          lease.Member{Client: c.srv.Client(t, nil), Namespace: ns, Identity: "a"},
		Name:            name,
		ReleaseOnCancel: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	err = e.Run(context.Background(), func(context.Context) {}, func() { stopped = true })
	if err != nil || !stopped || e.IsLeader() {
		t.Fatalf("Run = %v, onStoppedLeading called %v, IsLeader %v; want nil, true, false", err, stopped, e.IsLeader())
	}
	if got := c.lease().Spec.HolderIdentity; got != "" {
		t.Fatalf("holder %q, want the lease released", got)
	}
}

// A leaseDurationSeconds written shorter than the LeaseDuration asked for (2.9 s
// truncated to 2 s) lets a standby count the lease expired before the leader's
// renew deadline (2.5 s) has passed: two replicas lead at once. The duration is
// written rounded up (3 s), so the leader stops half a second before anyone may
// start. b reads a's renewal the moment it is written, the worst case.
func TestElector_fractional_lease_duration_is_written_rounded_up(t *testing.T) {
	c := newCluster(t)
	fractional := func(cfg *leaderelection.Config) {
		cfg.LeaseDuration, cfg.RenewDeadline, cfg.RetryPeriod = 2900*time.Millisecond, 2500*time.Millisecond, time.Second
	}
	a := c.start("a", fractional)
	c.step() // a renews at +1s
	if got, want := c.lease().Spec.LeaseDurationSeconds, int32(3); got != want {
		t.Errorf("leaseDurationSeconds %d for a LeaseDuration of 2.9s, want %d (rounded up)", got, want)
	}

	// a is cut off from the server from now on: its renewals fail, b's requests do not.
	c.srv.FailWhen(503, func(r *http.Request) bool { return r.Method == http.MethodPut && writesHolder(t, r, "a") })
	b := c.start("b", fractional)
	c.runUntil("led by b", 30*time.Second, b.e.IsLeader) // cluster.work reports an overlap
	if !a.finished || !errors.Is(a.err, leaderelection.ErrLeadershipLost) {
		t.Fatalf("b leads while a has not stepped down (Run returned: %v, err %v)", a.finished, a.err)
	}
}
