package leaderelection_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/kubeconfig"
	"github.com/kubewire/kubewire/apiclient/realtest"
	"github.com/kubewire/kubewire/controller/leaderelection"
	"github.com/kubewire/kubewire/controller/lease"
)

// realGroup is replicas of one controller, each with a client of its own as each
// would be a process of its own, competing for one Lease of a real
// kube-apiserver. Real time passes in these tests; every wait is bounded.
type realGroup struct {
	t       *testing.T
	cfg     *kubeconfig.Config
	lease   string
	timings func(*leaderelection.Config) // nil: the defaults
	working atomic.Int32                 // replicas whose work runs: never more than one
}

// realReplica is one replica of a realGroup.
type realReplica struct {
	e       *leaderelection.Elector
	stop    func() error // cancels Run's ctx and returns what Run returned
	started chan time.Time
}

func newRealGroup(t *testing.T) *realGroup {
	cfg, _ := realtest.Config(t)
	g := &realGroup{t: t, cfg: cfg, lease: realtest.Name("kubewire-it")}
	client := g.client()
	t.Cleanup(func() {
		_ = client.Resource(apiclient.Leases).Namespace(client.Namespace()).Delete(context.Background(), g.lease, apiclient.DeleteOptions{})
	})
	return g
}

func (g *realGroup) client() *apiclient.Client {
	g.t.Helper()
	client, err := apiclient.New(g.cfg, apiclient.Options{})
	if err != nil {
		g.t.Fatal(err)
	}
	return client
}

// start runs a replica with identity id; its work checks that no other works.
func (g *realGroup) start(id string, release bool) *realReplica {
	g.t.Helper()
	cfg := leaderelection.Config{Member: lease.Member{Client: g.client(), Identity: id}, Name: g.lease, ReleaseOnCancel: release}
	if g.timings != nil {
		g.timings(&cfg)
	}
	e, err := leaderelection.New(cfg)
	if err != nil {
		g.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	r := &realReplica{e: e, started: make(chan time.Time, 1)}
	r.stop = sync.OnceValue(func() error { cancel(); return <-done })
	go func() {
		done <- e.Run(ctx, func(ctx context.Context) {
			r.started <- time.Now()
			if n := g.working.Add(1); n > 1 {
				g.t.Errorf("%s started leading while another replica worked", id)
			}
			<-ctx.Done()
			g.working.Add(-1)
		}, nil)
	}()
	g.t.Cleanup(func() { _ = r.stop() })
	return r
}

// waitStarted waits until r's work starts, and returns how long after from.
func (g *realGroup) waitStarted(what string, r *realReplica, from time.Time, limit time.Duration) time.Duration {
	g.t.Helper()
	select {
	case at := <-r.started:
		return at.Sub(from)
	case <-time.After(limit):
		g.t.Fatalf("%s: no replica took over within %s", what, limit)
		return 0
	}
}

// waitStandby waits until r has read the Lease and seen holder lead.
func (g *realGroup) waitStandby(r *realReplica, holder string) {
	g.t.Helper()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(10 * time.Second)
	for r.e.Leader() != holder {
		select {
		case <-tick.C:
		case <-deadline:
			g.t.Fatalf("standby never saw %s lead (it sees %q)", holder, r.e.Leader())
		}
	}
	if r.e.IsLeader() {
		g.t.Fatalf("%s leads while %s holds the lease", r.e.Identity(), holder)
	}
}

// TestIntegration_hand_over_on_a_real_Lease runs three replicas, with the default
// timings (15 s / 10 s / 2 s), on one Lease of a real kube-apiserver, and measures
// the two hand-overs: a leader that shuts down cleanly and releases, and a leader
// that stops without a word, as a killed process would (about 20 s).
func TestIntegration_hand_over_on_a_real_Lease(t *testing.T) {
	g := newRealGroup(t)
	a := g.start("replica-a", true)
	g.waitStarted("first election", a, time.Now(), 10*time.Second)
	b := g.start("replica-b", false)
	g.waitStandby(b, "replica-a")

	// A clean shutdown: a's work stops, a releases, b takes over at its next read.
	t0 := time.Now()
	if err := a.stop(); err != nil {
		t.Fatalf("a: Run = %v", err)
	}
	released := g.waitStarted("after a release", b, t0, 10*time.Second)

	// A hard stop: b stops renewing without releasing. c waits out the lease.
	c := g.start("replica-c", false)
	g.waitStandby(c, "replica-b")
	t1 := time.Now()
	if err := b.stop(); err != nil {
		t.Fatalf("b: Run = %v", err)
	}
	crashed := g.waitStarted("after a hard stop", c, t1, 25*time.Second)

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

// Two processes given one identity on a real server (short timings: 3 s, 2 s,
// 0.5 s): one leads, the other waits, for longer than a lease; when the first
// stops without a release the second takes over a lease duration later. Both
// leading at once fails the test through the work's check (about 8 s).
func TestIntegration_two_processes_with_one_identity_lead_one_at_a_time(t *testing.T) {
	g := newRealGroup(t)
	g.timings = func(cfg *leaderelection.Config) {
		cfg.LeaseDuration, cfg.RenewDeadline, cfg.RetryPeriod = 3*time.Second, 2*time.Second, 500*time.Millisecond
	}
	first := g.start("replica-r1", false)
	g.waitStarted("first election", first, time.Now(), 10*time.Second)
	second := g.start("replica-r1", false)
	select {
	case <-second.started:
		t.Fatal("the second process with the same identity leads while the first renews")
	case <-time.After(4 * time.Second): // more than a lease duration
	}
	t0 := time.Now()
	if err := first.stop(); err != nil {
		t.Fatalf("first: Run = %v", err)
	}
	took := g.waitStarted("after the first stopped", second, t0, 10*time.Second)
	t.Logf("the twin took over %s after the first stopped", took.Round(time.Millisecond))
	if took < 2*time.Second {
		t.Errorf("the twin took over %s after the first stopped, want about the lease duration (3 s)", took)
	}
}
