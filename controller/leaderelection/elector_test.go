package leaderelection_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubewire/kubewire/controller/leaderelection"
)

func TestElector_first_replica_creates_the_lease_and_leads(t *testing.T) {
	c := newCluster(t)
	a := c.start("a")

	if got, want := c.leaders(), []string{"a"}; !slices.Equal(got, want) {
		t.Fatalf("leaders %v, want %v", got, want)
	}
	l := c.lease()
	if got, want := l.Spec.HolderIdentity, "a"; got != want {
		t.Fatalf("holder %q, want %q", got, want)
	}
	if got, want := l.Spec.LeaseDurationSeconds, int32(15); got != want {
		t.Fatalf("leaseDurationSeconds %d, want %d", got, want)
	}
	if got, want := l.Spec.LeaseTransitions, int32(0); got != want {
		t.Fatalf("leaseTransitions %d, want %d", got, want)
	}
	if got, want := since(l.Spec.AcquireTime), time.Duration(0); got != want {
		t.Fatalf("acquireTime at +%s, want +%s", got, want)
	}
	if got, want := c.srv.Requests(), []string{"GET default/kubewire 404", "POST default/kubewire 201"}; !slices.Equal(got, want) {
		t.Fatalf("requests %q, want %q", got, want)
	}
	st := a.e.Status()
	if !st.IsLeader || st.Leader != "a" || st.Identity != "a" {
		t.Fatalf("status %+v, want leader a", st)
	}
}

func TestElector_leader_renews_every_retry_period_with_one_write(t *testing.T) {
	c := newCluster(t)
	c.start("a")
	for i := 0; i < 3; i++ {
		if got, want := c.step(), 2*time.Second; got != want {
			t.Fatalf("renewal %d after %s, want %s", i+1, got, want)
		}
	}
	l := c.lease()
	if got, want := since(l.Spec.RenewTime), 6*time.Second; got != want {
		t.Fatalf("renewTime at +%s, want +%s", got, want)
	}
	if got, want := since(l.Spec.AcquireTime), time.Duration(0); got != want {
		t.Fatalf("acquireTime moved to +%s, want it kept at +%s", got, want)
	}
	// No GET before each PUT: the leader updates the Lease it last wrote.
	if got, want := c.srv.Requests()[2:], []string{"PUT default/kubewire 200", "PUT default/kubewire 200", "PUT default/kubewire 200"}; !slices.Equal(got, want) {
		t.Fatalf("renewal requests %q, want %q", got, want)
	}
}

func TestElector_second_replica_stays_standby_while_the_leader_renews(t *testing.T) {
	c := newCluster(t)
	c.start("a")
	b := c.start("b")
	c.runFor(time.Minute, func() {
		if got, want := c.leaders(), []string{"a"}; !slices.Equal(got, want) {
			t.Fatalf("at +%s leaders %v, want %v", c.elapsed, got, want)
		}
	})
	st := b.e.Status()
	if st.IsLeader || st.Leader != "a" {
		t.Fatalf("standby status %+v, want not leading, leader a", st)
	}
	// The standby only reads.
	for _, r := range c.srv.Requests()[2:] {
		if !strings.HasPrefix(r, "GET ") && r != "PUT default/kubewire 200" {
			t.Fatalf("unexpected request %q", r)
		}
	}
}

// The leader stops renewing without releasing, as if its process were killed.
func TestElector_standby_takes_over_once_the_lease_expires_on_its_own_clock(t *testing.T) {
	c := newCluster(t)
	a := c.start("a")
	b := c.start("b")
	c.runFor(7*time.Second, func() {})
	lastRenewal := since(c.lease().Spec.RenewTime)
	stoppedAt := c.elapsed
	if err := c.stop(a); err != nil {
		t.Fatalf("Run = %v, want nil", err)
	}
	took := c.runUntil("led by b", 30*time.Second, b.e.IsLeader)

	// b counts 15 s from when it first saw a's last renewal, which is no earlier than
	// the renewal, and it saw it at its next read (at most 2.2 × 2 s later). It wakes
	// at the expiry itself, so that is all.
	fromRenewal := stoppedAt + took - lastRenewal
	if fromRenewal < 15*time.Second || fromRenewal > 15*time.Second+4400*time.Millisecond {
		t.Fatalf("b took over %s after a's last renewal, want 15 s to 19.4 s", fromRenewal)
	}
	l := c.lease()
	if at := (stoppedAt + took).Truncate(time.Microsecond); l.Spec.HolderIdentity != "b" || l.Spec.LeaseTransitions != 1 || since(l.Spec.AcquireTime) != at {
		t.Fatalf("lease spec %+v, want holder b, 1 transition, acquired at +%s", l.Spec, at)
	}
	if !a.workEnded.Load() || !a.stopped.Load() {
		t.Fatalf("a: work ended %v, onStoppedLeading called %v; want both", a.workEnded.Load(), a.stopped.Load())
	}
}

func TestElector_release_on_cancel_hands_over_at_the_standbys_next_read(t *testing.T) {
	c := newCluster(t)
	release := func(cfg *leaderelection.Config) { cfg.ReleaseOnCancel = true }
	a := c.start("a", release)
	b := c.start("b", release)
	c.runFor(5*time.Second, func() {})

	if err := c.stop(a); err != nil {
		t.Fatalf("Run = %v, want nil", err)
	}
	l := c.lease()
	if l.Spec.HolderIdentity != "" || l.Spec.LeaseDurationSeconds != 1 || l.Spec.LeaseTransitions != 0 {
		t.Fatalf("released lease spec %+v, want no holder, 1 s, transitions kept at 0", l.Spec)
	}
	took := c.runUntil("led by b", 30*time.Second, b.e.IsLeader)
	if took > 4400*time.Millisecond {
		t.Fatalf("b took over %s after the release, want within one jittered retry (4.4 s)", took)
	}
	if got, want := c.lease().Spec.LeaseTransitions, int32(1); got != want {
		t.Fatalf("leaseTransitions %d, want %d", got, want)
	}
}

func TestElector_releases_only_after_the_work_has_returned(t *testing.T) {
	c := newCluster(t)
	a := c.start("a", func(cfg *leaderelection.Config) { cfg.ReleaseOnCancel = true })
	c.srv.Intercept(func(r *http.Request) {
		if r.Method == http.MethodPut && !a.workEnded.Load() && isRelease(t, r) {
			t.Errorf("the lease was released while a's work still ran")
		}
	})
	if err := c.stop(a); err != nil {
		t.Fatal(err)
	}
	if got := c.lease().Spec.HolderIdentity; got != "" {
		t.Fatalf("holder %q after release, want none", got)
	}
}

func TestElector_OnNewLeader_reports_each_holder_once_in_order(t *testing.T) {
	c := newCluster(t)
	var seen names
	a := c.start("a")
	b := c.start("b", func(cfg *leaderelection.Config) { cfg.OnNewLeader = seen.add })
	c.runFor(6*time.Second, func() {})
	c.stop(a)
	c.runUntil("led by b", 30*time.Second, b.e.IsLeader)
	c.runFor(6*time.Second, func() {})
	if got, want := seen.get(), []string{"a", "b"}; !slices.Equal(got, want) {
		t.Fatalf("OnNewLeader saw %q, want %q", got, want)
	}
}

func TestElector_standby_that_is_cancelled_returns_nil_without_onStoppedLeading(t *testing.T) {
	c := newCluster(t)
	c.start("a")
	b := c.start("b")
	c.runFor(3*time.Second, func() {})
	if err := c.stop(b); err != nil {
		t.Fatalf("Run = %v, want nil", err)
	}
	if b.stopped.Load() {
		t.Fatal("onStoppedLeading called for a replica that never led")
	}
}

func TestElector_Run_twice_at_once_panics(t *testing.T) {
	c := newCluster(t)
	a := c.start("a")
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	_ = a.e.Run(context.Background(), nil, nil)
}
