package sharding_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/realtest"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/controller/lease"
	"github.com/kubewire/kubewire/controller/sharding"
)

// ledger is the place every replica's reconciles are written down: who
// reconciles which object, from when to when. Two replicas in one object's
// reconcile at once is an overlap, the failure sharding must never allow.
type ledger struct {
	mu       sync.Mutex
	running  map[string]map[string]int // key → replica → reconciles running
	overlaps []string
	byKey    map[string][]string // key → the replicas that reconciled it, in order
}

func (l *ledger) begin(replica, key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for other, n := range l.running[key] {
		if other != replica && n > 0 {
			l.overlaps = append(l.overlaps, fmt.Sprintf("%s reconciled by %s and %s at once (%s)", key, other, replica, time.Now().Format("15:04:05.000")))
		}
	}
	if l.running[key] == nil {
		l.running[key] = map[string]int{}
	}
	l.running[key][replica]++
	l.byKey[key] = append(l.byKey[key], replica)
}

func (l *ledger) end(replica, key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.running[key][replica]--
}

// group runs replicas of one sharded controller over the ConfigMaps of a
// namespace, each a Manager of its own with a client of its own, as separate
// processes would.
type group struct {
	t        *testing.T
	ns       string
	ledger   *ledger
	changed  chan struct{} // a replica logged something: membership or ranges may have moved
	replicas map[string]*replica
}

type replica struct {
	m    *controller.Manager
	inf  *informer.Informer
	stop context.CancelFunc
	done chan error
}

// signal is a slog.Handler that tells the group whenever a Sharder logs, so
// that waiting for the group to settle reacts to events instead of sleeping.
type signal struct {
	ch chan struct{}
	id string
}

func (s signal) Enabled(context.Context, slog.Level) bool { return true }
func (s signal) Handle(_ context.Context, r slog.Record) error {
	if os.Getenv("KUBEWIRE_TEST_SHARD_LOG") != "" {
		line := time.Now().Format("15:04:05.000") + " " + s.id + " " + r.Message
		r.Attrs(func(a slog.Attr) bool { line += " " + a.String(); return true })
		fmt.Fprintln(os.Stderr, line)
	}
	select {
	case s.ch <- struct{}{}:
	default:
	}
	return nil
}
func (s signal) WithAttrs([]slog.Attr) slog.Handler { return s }
func (s signal) WithGroup(string) slog.Handler      { return s }

func (g *group) start(id string) { g.startAs(id, id) }

// startAs starts the replica id with the identity given: two replicas may be
// given one.
func (g *group) startAs(id, identity string) {
	g.t.Helper()
	c, _ := realtest.Client(g.t, apiclient.Options{QPS: 200, Burst: 400})
	m, err := controller.NewManager(c, controller.ManagerOptions{Namespace: g.ns, Log: slog.New(slog.DiscardHandler), Sharding: &sharding.Config{
		Member: lease.Member{Namespace: g.ns, Identity: identity, Logger: slog.New(signal{g.changed, id}), LeaseDuration: 3 * time.Second, RenewDeadline: 2 * time.Second, RetryPeriod: 500 * time.Millisecond},
		Name:   "it",
	}})
	if err != nil {
		g.t.Fatal(err)
	}
	b := controller.New(m, "it", controller.Options{Workers: 4}).For(apiclient.ConfigMaps)
	inf := m.Informer(apiclient.ConfigMaps) // the For's: this replica's share
	_, err = b.Complete(controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
		g.ledger.begin(id, req.String())
		defer g.ledger.end(id, req.String())
		if os.Getenv("KUBEWIRE_TEST_SHARD_LOG") != "" {
			obj, _ := inf.Get(req.Namespace, req.Name)
			fmt.Fprintf(os.Stderr, "%s %s reconcile %s hash %016x serving %v\n", time.Now().Format("15:04:05.000"), id, req.Name, sharding.Hash(obj.Metadata.UID), m.Sharder().Status().Serving)
		}
		// The work: an I/O-bound reconcile of a few milliseconds, long enough
		// for a second replica's reconcile of the same object to overlap it,
		// were the gate to let one through.
		select {
		case <-time.After(5 * time.Millisecond):
		case <-ctx.Done():
		}
		return controller.Result{}, nil
	}))
	if err != nil {
		g.t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	r := &replica{m: m, inf: inf, stop: stop, done: make(chan error, 1)}
	go func() { r.done <- m.Run(ctx) }()
	g.replicas[id] = r
}

func (g *group) stop(id string) {
	g.t.Helper()
	r := g.replicas[id]
	r.stop()
	if err := <-r.done; err != nil {
		g.t.Errorf("replica %s: %v", id, err)
	}
	delete(g.replicas, id)
}

// settled reports whether every running replica sees all the others and no
// more, they serve the whole hash space between them, each its own part, and
// each caches its part alone.
func (g *group) settled() (bool, string) {
	var union sharding.Set
	for id, r := range g.replicas {
		st := r.m.Sharder().Status()
		if len(st.Members) != len(g.replicas) {
			return false, fmt.Sprintf("%s sees members %v", id, st.Members)
		}
		if union.Overlaps(st.Serving) {
			return false, fmt.Sprintf("%s serves %v, which another serves too", id, st.Serving)
		}
		union = union.Union(st.Serving)
		for _, obj := range r.inf.List() {
			if !st.Serving.Contains(sharding.Hash(obj.Metadata.UID)) {
				return false, fmt.Sprintf("%s caches %s, outside its ranges %v", id, obj.Key(), st.Serving)
			}
		}
	}
	if !union.Equal(sharding.Set{sharding.Full}) {
		return false, fmt.Sprintf("the replicas serve %v", union)
	}
	return true, ""
}

func (g *group) waitSettled(what string) time.Duration {
	g.t.Helper()
	start := time.Now()
	deadline := time.After(30 * time.Second)
	for {
		ok, why := g.settled()
		if ok {
			return time.Since(start)
		}
		select {
		case <-g.changed:
		case <-time.After(100 * time.Millisecond): // a member's Lease expiring logs nothing
		case <-deadline:
			g.t.Fatalf("%s: the group did not settle in 30 s: %s", what, why)
		}
	}
}

// newGroup makes a namespace of objects ConfigMaps on the real server and a
// group of replicas (none started) over it, stopped when the test ends. Every
// object changes all the time, so that reconciles are in flight whenever
// ranges move, until stopTouching.
func newGroup(t *testing.T, prefix string, objects int) (g *group, stopTouching func()) {
	t.Helper()
	c, _ := realtest.Client(t, apiclient.Options{QPS: 200, Burst: 400})
	ns := realtest.Namespace(t, c, prefix)
	cms := c.Resource(apiclient.ConfigMaps).Namespace(ns)
	ctx := context.Background()
	for i := range objects {
		if _, err := cms.Create(ctx, []byte(fmt.Sprintf(`{"metadata":{"name":"cm-%03d"}}`, i)), apiclient.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	g = &group{t: t, ns: ns, ledger: &ledger{running: map[string]map[string]int{}, byKey: map[string][]string{}},
		changed: make(chan struct{}, 1), replicas: map[string]*replica{}}
	t.Cleanup(func() {
		for id := range g.replicas {
			g.stop(id)
		}
	})
	touchCtx, stop := context.WithCancel(ctx)
	touched := make(chan struct{})
	go func() { // owned by stopTouching, which waits for it
		defer close(touched)
		for i := 0; touchCtx.Err() == nil; i++ {
			patch := fmt.Sprintf(`{"data":{"n":"%d"}}`, i)
			_, _ = cms.Patch(touchCtx, fmt.Sprintf("cm-%03d", i%objects), apiclient.MergePatch, []byte(patch), apiclient.WriteOptions{})
		}
	}()
	var once sync.Once
	stopTouching = func() { once.Do(func() { stop(); <-touched }) }
	t.Cleanup(stopTouching)
	return g, stopTouching
}

// Twenty membership changes while every object keeps changing: no object is
// ever reconciled by two replicas at once, and afterwards each object's
// reconciles come from the replica that serves its hash.
func TestIntegration_no_object_is_reconciled_by_two_replicas_at_once(t *testing.T) {
	const objects = 200
	g, stopTouching := newGroup(t, "kubewire-shard", objects)

	// r00 alone serves everything; when r01 joins, r00 gives up the upper
	// half and takes nothing: its cache must shrink all the same.
	g.start("r00")
	g.waitSettled("one replica")
	g.start("r01")
	g.waitSettled("two replicas")
	order := []string{"r00", "r01"}
	for change := range 20 {
		if change%2 == 0 {
			id := fmt.Sprintf("r%02d", change+2)
			g.start(id)
			order = append(order, id)
		} else {
			g.stop(order[0])
			order = order[1:]
		}
		took := g.waitSettled(fmt.Sprintf("change %d", change+1))
		t.Logf("change %2d: %d replicas %v, settled in %s", change+1, len(g.replicas), order, took.Round(time.Millisecond))
	}
	stopTouching()

	g.ledger.mu.Lock()
	overlaps := g.ledger.overlaps
	reconciled := len(g.ledger.byKey)
	g.ledger.mu.Unlock()
	for _, o := range overlaps {
		t.Error(o)
	}
	if reconciled != objects {
		t.Errorf("%d of %d objects were reconciled", reconciled, objects)
	}

	// Settled: each replica caches its share and no more, and a change to any
	// object is reconciled by the replica that serves it.
	owner := map[string]string{}
	serverSide := 0
	for id, r := range g.replicas {
		st := r.m.Sharder().Status()
		serverSide += st.ServerSide
		for _, obj := range r.inf.List() {
			if !st.Serving.Contains(sharding.Hash(obj.Metadata.UID)) {
				t.Errorf("%s caches %s, outside its ranges %v", id, obj.Key(), st.Serving)
			}
			owner[obj.Key()] = id
		}
	}
	if len(owner) != objects {
		t.Errorf("the replicas cache %d objects between them, want %d", len(owner), objects)
	}
	if os.Getenv("KUBEWIRE_TEST_SHARD_SELECTOR") != "" && serverSide != len(g.replicas) {
		t.Errorf("the server serves shardSelector (KUBEWIRE_TEST_SHARD_SELECTOR), but only %d of %d replicas use it", serverSide, len(g.replicas))
	}
	t.Logf("filtering: %d of %d replicas by the server's shardSelector", serverSide, len(g.replicas))
}
