package leaderelection_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/realtest"
	"github.com/kubewire/kubewire/controller/leaderelection"
)

// TestIntegration_hand_over_on_a_real_Lease runs three replicas, with the default
// timings (15 s / 10 s / 2 s), on one Lease of a real kube-apiserver, and measures
// the two hand-overs: a leader that shuts down cleanly and releases, and a leader
// that stops without a word, as a killed process would. Real time passes here (about
// 20 s); every wait is bounded.
func TestIntegration_hand_over_on_a_real_Lease(t *testing.T) {
	cfg, _ := realtest.Config(t)
	leaseName := realtest.Name("kubewire-it")

	var working atomic.Int32 // replicas whose work runs: never more than one
	type replica struct {
		e       *leaderelection.Elector
		stop    func() error // cancels Run's ctx and returns what Run returned
		started chan time.Time
	}
	start := func(id string, release bool) *replica {
		t.Helper()
		// A client per replica, as each would be a process of its own.
		client, err := apiclient.New(cfg, apiclient.Options{})
		if err != nil {
			t.Fatal(err)
		}
		e, err := leaderelection.New(leaderelection.Config{
			Client: client, Name: leaseName, Identity: id, ReleaseOnCancel: release,
		})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		r := &replica{e: e, started: make(chan time.Time, 1)}
		r.stop = sync.OnceValue(func() error { cancel(); return <-done })
		go func() {
			done <- e.Run(ctx, func(ctx context.Context) {
				r.started <- time.Now()
				if n := working.Add(1); n > 1 {
					t.Errorf("%s started leading while another replica worked", id)
				}
				<-ctx.Done()
				working.Add(-1)
			}, nil)
		}()
		t.Cleanup(func() { _ = r.stop() })
		return r
	}
	client, err := apiclient.New(cfg, apiclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = client.Resource(apiclient.Leases).Namespace(client.Namespace()).Delete(context.Background(), leaseName, apiclient.DeleteOptions{})
	})
	waitStarted := func(what string, r *replica, from time.Time, limit time.Duration) time.Duration {
		t.Helper()
		select {
		case at := <-r.started:
			return at.Sub(from)
		case <-time.After(limit):
			t.Fatalf("%s: no replica took over within %s", what, limit)
			return 0
		}
	}
	// waitStandby waits until r has read the Lease and seen holder lead.
	waitStandby := func(r *replica, holder string) {
		t.Helper()
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		deadline := time.After(10 * time.Second)
		for r.e.Leader() != holder {
			select {
			case <-tick.C:
			case <-deadline:
				t.Fatalf("standby never saw %s lead (it sees %q)", holder, r.e.Leader())
			}
		}
		if r.e.IsLeader() {
			t.Fatalf("%s leads while %s holds the lease", r.e.Identity(), holder)
		}
	}

	a := start("replica-a", true)
	waitStarted("first election", a, time.Now(), 10*time.Second)
	bReplica := start("replica-b", false)
	waitStandby(bReplica, "replica-a")

	// A clean shutdown: a's work stops, a releases, b takes over at its next read.
	t0 := time.Now()
	if err := a.stop(); err != nil {
		t.Fatalf("a: Run = %v", err)
	}
	released := waitStarted("after a release", bReplica, t0, 10*time.Second)

	// A hard stop: b stops renewing without releasing. c waits out the lease.
	c := start("replica-c", false)
	waitStandby(c, "replica-b")
	t1 := time.Now()
	if err := bReplica.stop(); err != nil {
		t.Fatalf("b: Run = %v", err)
	}
	crashed := waitStarted("after a hard stop", c, t1, 25*time.Second)

	t.Logf("hand-over after a release: %s; after a hard stop (no release): %s", released.Round(time.Millisecond), crashed.Round(time.Millisecond))
	if released > 4400*time.Millisecond+time.Second {
		t.Errorf("hand-over after a release took %s, want about one jittered retry (≤ 4.4 s)", released)
	}
	if crashed > 20*time.Second {
		t.Errorf("hand-over after a hard stop took %s, want under 20 s", crashed)
	}
	if st := c.e.Status(); !st.IsLeader || st.Transitions != 2 {
		t.Errorf("c: status %+v, want leading after 2 transitions", st)
	}
}
