package controller_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/builtin"
	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/lease"
	"github.com/kubewire/kubewire/controller/metrics"
	"github.com/kubewire/kubewire/controller/sharding"
	"github.com/kubewire/kubewire/controller/trace"
)

// wake is a slog.Handler that signals on every record: the Sharders log every
// change of what they serve, so a test waits on this instead of sleeping.
type wake chan struct{}

func (w wake) Enabled(context.Context, slog.Level) bool { return true }
func (w wake) Handle(context.Context, slog.Record) error {
	select {
	case w <- struct{}{}:
	default:
	}
	return nil
}
func (w wake) WithAttrs([]slog.Attr) slog.Handler { return w }
func (w wake) WithGroup(string) slog.Handler      { return w }

// until waits for cond, checking it again at every signal, for 20 s at most.
func (w wake) until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for !cond() {
		select {
		case <-w:
		case <-deadline:
			t.Fatalf("not within 20 s: %s", what)
		}
	}
}

// shardReplica is one sharded Manager on the in-memory API server (which does
// not serve shardSelector: the replicas filter for themselves).
type shardReplica struct {
	m    *controller.Manager
	stop context.CancelFunc
	done chan error
}

func startShardReplica(t *testing.T, srv *apitest.Server, id string, w slog.Handler, reconciled func(id, key string), transport http.RoundTripper) *shardReplica {
	t.Helper()
	c, err := srv.Client(apiclient.Options{Transport: transport})
	if err != nil {
		t.Fatal(err)
	}
	// The Manager's logger is the Sharder's: every record wakes the test.
	m, err := controller.NewManager(c, controller.ManagerOptions{Namespace: "demo", Log: slog.New(w), Sharding: &sharding.Config{
		Name: "cms",
		// A cut-off replica stops within RenewDeadline plus a round; the
		// other takes over no sooner than LeaseDuration: 3 s apart, so a
		// loaded machine (CI runs packages in parallel, with -race) keeps the order.
		Member: lease.Member{Namespace: "ops", Identity: id,
			LeaseDuration: 4 * time.Second, RenewDeadline: time.Second, RetryPeriod: 300 * time.Millisecond},
	}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = controller.New(m, "cms", controller.Options{}).For(apiclient.ConfigMaps).
		Complete(controller.ReconcilerFunc(func(_ context.Context, req controller.Request) (controller.Result, error) {
			reconciled(id, req.String())
			return controller.Result{}, nil
		}))
	must(t, err)
	ctx, stop := context.WithCancel(context.Background())
	r := &shardReplica{m: m, stop: stop, done: make(chan error, 1)}
	go func() { r.done <- m.Run(ctx) }()
	return r
}

// Two sharded replicas split the objects by their UIDs' hash and each
// reconciles its own alone; /readyz and /metrics say what each serves; when
// one stops, the other takes everything over and reconciles it.
func TestManager_sharding_splits_the_work_and_hands_it_over(t *testing.T) {
	srv := apitest.NewServer(nil)
	srv.CreateNamespaces("demo", "ops")
	defer srv.Close()
	var mu sync.Mutex
	byKey := map[string][]string{}
	w := make(wake, 1)
	reconciled := func(id, key string) {
		mu.Lock()
		byKey[key] = append(byKey[key], id)
		mu.Unlock()
		_ = w.Handle(context.Background(), slog.Record{})
	}
	a := startShardReplica(t, srv, "a", w, reconciled, nil)
	b := startShardReplica(t, srv, "b", w, reconciled, nil)
	defer func() {
		for _, r := range []*shardReplica{a, b} {
			r.stop()
			<-r.done
		}
	}()
	halves := sharding.Assign([]string{"a", "b"})
	w.until(t, "a and b each serving half", func() bool {
		return a.m.Sharder().Status().Serving.Equal(halves["a"]) && b.m.Sharder().Status().Serving.Equal(halves["b"])
	})

	ctx := context.Background()
	client, _ := srv.Client(apiclient.Options{})
	uids := map[string]string{}
	for i := range 40 {
		o, err := client.Resource(apiclient.ConfigMaps).Namespace("demo").Create(ctx, []byte(fmt.Sprintf(`{"metadata":{"name":"cm-%02d"}}`, i)), apiclient.WriteOptions{})
		if err != nil {
			t.Fatal(err)
		}
		uids[o.Key()] = o.Metadata.UID
	}
	w.until(t, "40 objects reconciled", func() bool { mu.Lock(); defer mu.Unlock(); return len(byKey) == 40 })
	mu.Lock()
	for key, ids := range byKey {
		owner := "a"
		if halves["b"].Contains(sharding.Hash(uids[key])) {
			owner = "b"
		}
		for _, id := range ids {
			if id != owner {
				t.Errorf("%s reconciled by %s; its hash is %s's", key, id, owner)
			}
		}
	}
	mu.Unlock()

	ready, err := a.m.Ready()
	if err != nil || !strings.Contains(ready, "serving "+halves["a"].String()) || !strings.Contains(ready, "2 members") {
		t.Errorf("a's /readyz = %q, %v; want its ranges and 2 members", ready, err)
	}
	rec := httptest.NewRecorder()
	metrics.Handler(a.m.Registry(), a.m.Ready).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	for _, want := range []string{`kubewire_shard_members{identity="a"} 2`, `kubewire_shard_fraction{identity="a"} 0.5`, `kubewire_shard_handovers_total{identity="a"} 1`, `kubewire_shard_handover_duration_seconds_count{identity="a"} 1`} {
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}

	// b stops cleanly: a serves everything, and reconciles b's objects.
	b.stop()
	if err := <-b.done; err != nil {
		t.Fatal(err)
	}
	b = &shardReplica{stop: func() {}, done: make(chan error, 1)}
	b.done <- nil
	w.until(t, "a serving everything", func() bool { return a.m.Sharder().Status().Serving.Equal(sharding.Set{sharding.Full}) })
	// What b served is a's now, and a reconciles it without any change to it.
	w.until(t, "a reconciling b's objects", func() bool {
		mu.Lock()
		defer mu.Unlock()
		for _, ids := range byKey {
			if ids[len(ids)-1] != "a" {
				return false
			}
		}
		return true
	})
}

// cut is a transport that fails every request while cut is set: the replica
// behind it is cut off from the API server (its open watch streams go on; only
// new requests fail, which is all the Lease protocol makes).
type cut struct {
	next http.RoundTripper
	cut  atomic.Bool
}

func (c *cut) RoundTrip(r *http.Request) (*http.Response, error) {
	if c.cut.Load() {
		return nil, fmt.Errorf("cut off from the API server (test)")
	}
	return c.next.RoundTrip(r)
}

// journal is a slog.Handler that keeps the Sharders' messages in order, with
// who said them, and wakes the test.
type journal struct {
	wake
	id    string
	mu    *sync.Mutex
	lines *[]string
}

func (j journal) Handle(ctx context.Context, r slog.Record) error {
	line := j.id + " " + r.Message
	r.Attrs(func(a slog.Attr) bool { line += " " + a.String(); return true })
	j.mu.Lock()
	*j.lines = append(*j.lines, line)
	j.mu.Unlock()
	return j.wake.Handle(ctx, r)
}
func (j journal) WithAttrs([]slog.Attr) slog.Handler { return j }
func (j journal) WithGroup(string) slog.Handler      { return j }

// A replica cut off from the API server stops reconciling at its renew
// deadline, before the other takes its ranges over (once its Lease has looked
// dead for the lease duration); back, it claims its share afresh. Objects
// change all along, and no object is reconciled by both at once.
func TestManager_sharding_partition_stops_the_cut_replica_before_the_other_takes_over(t *testing.T) {
	srv := apitest.NewServer(nil)
	srv.CreateNamespaces("demo", "ops")
	defer srv.Close()
	ctx := context.Background()
	client, _ := srv.Client(apiclient.Options{})
	cms := client.Resource(apiclient.ConfigMaps).Namespace("demo")
	for i := range 20 {
		if _, err := cms.Create(ctx, []byte(fmt.Sprintf(`{"metadata":{"name":"cm-%02d"}}`, i)), apiclient.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	uids := map[string]string{}
	list, _ := cms.List(ctx, apiclient.ListOptions{})
	for _, o := range list.Items {
		uids[o.Key()] = o.Metadata.UID
	}
	type rec struct {
		id, key string
		at      time.Time
	}
	var mu sync.Mutex
	var lines []string
	var recs []rec
	w := make(wake, 1)
	reconciled := func(id, key string) {
		mu.Lock()
		recs = append(recs, rec{id, key, time.Now()})
		mu.Unlock()
		_ = w.Handle(context.Background(), slog.Record{})
	}
	bNet := &cut{next: srv.Transport()}
	a := startShardReplica(t, srv, "a", journal{w, "a", &mu, &lines}, reconciled, nil)
	b := startShardReplica(t, srv, "b", journal{w, "b", &mu, &lines}, reconciled, bNet)
	defer func() {
		bNet.cut.Store(false)
		for _, r := range []*shardReplica{a, b} {
			r.stop()
			<-r.done
		}
	}()
	halves := sharding.Assign([]string{"a", "b"})
	w.until(t, "a and b each serving half", func() bool {
		return a.m.Sharder().Status().Serving.Equal(halves["a"]) && b.m.Sharder().Status().Serving.Equal(halves["b"])
	})

	// The objects keep changing, so both replicas keep reconciling.
	touchCtx, stopTouching := context.WithCancel(ctx)
	touched := make(chan struct{})
	go func() {
		defer close(touched)
		for i := 0; touchCtx.Err() == nil; i++ {
			_, _ = cms.Patch(touchCtx, fmt.Sprintf("cm-%02d", i%20), apiclient.MergePatch, []byte(fmt.Sprintf(`{"data":{"n":"%d"}}`, i)), apiclient.WriteOptions{})
		}
	}()
	defer func() { stopTouching(); <-touched }()

	cutAt := time.Now()
	bNet.cut.Store(true)
	w.until(t, "a serving everything while b is cut off", func() bool { return a.m.Sharder().Status().Serving.Equal(sharding.Set{sharding.Full}) })
	if st := b.m.Sharder().Status(); !st.Serving.Empty() || !st.Claimed.Empty() {
		t.Errorf("b, cut off, still serves %v and claims %v", st.Serving, st.Claimed)
	}
	// a's take-over is timed from b's last renewal it saw, so it took at
	// least the lease duration (4 s), not the moment a counted b gone.
	if d := a.m.Sharder().Status().Durations; d.Count == 0 || d.Count == bucketCount(t, d, 2.5) {
		t.Errorf("a's hand-overs %+v: want one above 4 s, the lease duration b's crash cost", d)
	}
	w.until(t, "a reconciling b's half", func() bool {
		mu.Lock()
		defer mu.Unlock()
		for _, r := range recs {
			if r.id == "a" && r.at.After(cutAt) && halves["b"].Contains(sharding.Hash(uids[r.key])) {
				return true
			}
		}
		return false
	})
	// b's last reconcile of its half came before a's first one after the cut.
	mu.Lock()
	var bLast, aFirst time.Time
	for _, r := range recs {
		if !halves["b"].Contains(sharding.Hash(uids[r.key])) || r.at.Before(cutAt) && r.id == "a" {
			continue
		}
		switch {
		case r.id == "b" && r.at.After(bLast):
			bLast = r.at
		case r.id == "a" && aFirst.IsZero():
			aFirst = r.at
		}
	}
	journal := strings.Join(lines, "\n")
	mu.Unlock()
	if bLast.IsZero() || aFirst.IsZero() || !bLast.Before(aFirst) {
		t.Errorf("b reconciled its half last at %s, a first at %s (cut at %s): want b's before a's", bLast.Format("15:04:05.000"), aFirst.Format("15:04:05.000"), cutAt.Format("15:04:05.000"))
	}
	stopped := strings.Index(journal, "b sharding: could not renew")
	// a may have served everything once before, alone, before b joined: its
	// take-over is its last such line.
	took := strings.LastIndex(journal, "a sharding: serving ranges="+sharding.Full.String())
	if stopped < 0 || took < 0 || stopped > took {
		t.Errorf("want b to stop before a takes over; the Sharders said:\n%s", journal)
	}

	// Back: b claims its share afresh and the two split the space again.
	bNet.cut.Store(false)
	w.until(t, "a and b each serving half again", func() bool {
		return a.m.Sharder().Status().Serving.Equal(halves["a"]) && b.m.Sharder().Status().Serving.Equal(halves["b"])
	})
}

// holdLists is a transport that holds every LIST of ConfigMaps until release
// is closed: the replica behind it has claimed a range whose list it has not
// yet been given.
type holdLists struct {
	next      http.RoundTripper
	release   chan struct{}
	cutLeases *atomic.Bool // when set, every new request about Leases fails
}

func (h holdLists) RoundTrip(r *http.Request) (*http.Response, error) {
	if h.cutLeases != nil && h.cutLeases.Load() && strings.Contains(r.URL.Path, "/leases") {
		return nil, fmt.Errorf("cut off from the Leases (test)")
	}
	if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/configmaps") && r.URL.Query().Get("watch") == "" {
		select {
		case <-h.release:
		case <-r.Context().Done():
			return nil, r.Context().Err()
		}
	}
	return h.next.RoundTrip(r)
}

// heldReplica runs one sharded Manager over ConfigMaps in "demo" behind hold,
// its Sharder on the fake clock it returns, with reconcile as the controller;
// skipped is called for every Request the gate refuses. The first round
// claims everything, times out waiting for the held list, and waits on the
// clock; the test releases the list (close(hold.release)) and steps the clock.
// stop releases the list if the test has not and stops the Manager.
func heldReplica(t *testing.T, srv *apitest.Server, hold holdLists, reconcile controller.ReconcilerFunc, skipped func()) (fake *clock.Fake, stop func()) {
	t.Helper()
	c, err := srv.Client(apiclient.Options{Transport: hold})
	if err != nil {
		t.Fatal(err)
	}
	fake = clock.NewFake()
	m, err := controller.NewManager(c, controller.ManagerOptions{Namespace: "demo", Log: quiet, Trace: func(e trace.Event) {
		if e.Stage == trace.Controller && e.Verb == "skip" {
			skipped()
		}
	}, Sharding: &sharding.Config{
		Member: lease.Member{Namespace: "ops", Identity: "a", Clock: fake, LeaseDuration: 4 * time.Second, RenewDeadline: time.Second, RetryPeriod: 300 * time.Millisecond},
		Name:   "cms",
	}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = controller.New(m, "cms", controller.Options{}).For(apiclient.ConfigMaps).Complete(reconcile)
	must(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	// Two waiters: the Sharder's watch on its renew deadline, and its next round.
	fake.BlockUntilWaiters(2)
	return fake, func() {
		select {
		case <-hold.release:
		default:
			close(hold.release)
		}
		cancel()
		<-done
	}
}

// The objects of a range are reconciled when the replica begins to serve it,
// even when their adds reached the controller before that (and were refused,
// since the range was not served yet). Here the order is forced: the Sharder's
// clock is fake, so after the round that timed out waiting for the held list no
// other round runs until the test steps the clock, after every refusal.
func TestManager_sharding_reconciles_objects_cached_before_their_range_was_served(t *testing.T) {
	srv := apitest.NewServer(nil)
	srv.CreateNamespaces("demo", "ops")
	defer srv.Close()
	ctx := context.Background()
	admin, _ := srv.Client(apiclient.Options{})
	for i := range 5 {
		if _, err := admin.Resource(apiclient.ConfigMaps).Namespace("demo").Create(ctx, []byte(fmt.Sprintf(`{"metadata":{"name":"cm-%d"}}`, i)), apiclient.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	skipped, reconciled := make(chan string, 10), make(chan string, 10)
	var skips atomic.Int32
	hold := holdLists{next: srv.Transport(), release: make(chan struct{})}
	clock, stop := heldReplica(t, srv, hold, func(_ context.Context, req controller.Request) (controller.Result, error) {
		reconciled <- req.String()
		return controller.Result{}, nil
	}, func() { skipped <- fmt.Sprint(skips.Add(1)) })
	defer stop()
	within := func(what string, ch <-chan string, n int) {
		t.Helper()
		seen := map[string]bool{}
		deadline := time.After(20 * time.Second)
		for len(seen) < n {
			select {
			case s := <-ch:
				seen[s] = true
			case <-deadline:
				t.Fatalf("not within 20 s: %s (%d of %d)", what, len(seen), n)
			}
		}
	}

	// The list arrives: the informer syncs, the controller starts, and every
	// add is refused, the range not being served yet.
	close(hold.release)
	within("5 adds refused before the range is served", skipped, 5)
	select {
	case key := <-reconciled:
		t.Fatalf("%s reconciled before its range was served", key)
	default:
	}

	// The next round finds the list cached and serves the range: its five
	// objects are reconciled though no event of theirs comes again.
	clock.Step(300 * time.Millisecond)
	within("the 5 objects reconciled once their range is served", reconciled, 5)
}

// A reconcile still running when its replica's renew deadline passes has its
// context cancelled: the others may take its range LeaseDuration −
// RenewDeadline later. The order is forced as in the test above.
func TestManager_sharding_cancels_a_running_reconcile_at_the_renew_deadline(t *testing.T) {
	srv := apitest.NewServer(nil)
	srv.CreateNamespaces("demo", "ops")
	defer srv.Close()
	admin, _ := srv.Client(apiclient.Options{})
	if _, err := admin.Resource(apiclient.ConfigMaps).Namespace("demo").Create(context.Background(), []byte(`{"metadata":{"name":"slow"}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	skipped, started, cancelled := make(chan struct{}, 1), make(chan struct{}, 1), make(chan error, 1)
	hold := holdLists{next: srv.Transport(), release: make(chan struct{}), cutLeases: new(atomic.Bool)}
	clock, stop := heldReplica(t, srv, hold, func(ctx context.Context, _ controller.Request) (controller.Result, error) {
		started <- struct{}{}
		<-ctx.Done()
		cancelled <- ctx.Err()
		return controller.Result{}, nil
	}, func() { skipped <- struct{}{} })
	defer stop()
	close(hold.release)
	select {
	case <-skipped: // the list is in the cache; the next round serves it
	case <-time.After(20 * time.Second):
		t.Fatal("the object's add did not reach the controller within 20 s")
	}
	clock.Step(300 * time.Millisecond)
	select {
	case <-started:
	case <-time.After(20 * time.Second):
		t.Fatal("the reconcile did not start within 20 s of its range being served")
	}

	hold.cutLeases.Store(true)
	clock.Step(time.Second) // RenewDeadline past the last renewal
	select {
	case err := <-cancelled:
		if err == nil {
			t.Fatal("the reconcile's context ended without an error")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the reconcile's context is live 20 s after the renew deadline passed")
	}
}

// bucketCount is how many of h's observations were at most le.
func bucketCount(t *testing.T, h metrics.HistogramSnapshot, le float64) uint64 {
	t.Helper()
	for _, b := range h.Buckets {
		if b.UpperBound == le {
			return b.Count
		}
	}
	t.Fatalf("no bucket le=%v in %+v", le, h)
	return 0
}

// Under sharding, an informer asked for before For (a Lister, an Index, an
// Informer: the order README shows) is the For's share, one cache for both: which
// informers shard is settled when the Manager runs. (Complete failed: "an
// informer of configmaps was asked for before".)
func TestManager_sharding_an_informer_asked_for_before_For_is_the_Fors_share(t *testing.T) {
	m := shardedAlone(t)
	before := m.Informer(apiclient.ConfigMaps)
	reconciled := make(chan string, 16)
	_, err := controller.New(m, "cms", controller.Options{}).For(apiclient.ConfigMaps).
		Complete(controller.ReconcilerFunc(func(_ context.Context, req controller.Request) (controller.Result, error) {
			reconciled <- req.String()
			return controller.Result{}, nil
		}))
	must(t, err)
	if after := m.Informer(apiclient.ConfigMaps); after != before {
		t.Fatal("the informer asked for before For and the For's are two caches")
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	if got := <-reconciled; got != "demo/a" {
		t.Errorf("reconciled %q, want demo/a", got)
	}
	if got, want := m.Sharder().Status().Sources, 1; got != want {
		t.Errorf("the Sharder fills %d sources, want %d: the informer asked for before For", got, want)
	}
	stop()
	must(t, <-done)
}

// Under sharding any order of asking for a cache and describing the
// controller works: a Lister, an Index or an Informer of the For resource,
// asked for before New, between New and For, after Complete or while the
// Manager runs, is the For's one cache, filled with this replica's share by
// one source of the Sharder's.
func TestManager_sharding_any_order_of_caches_and_For(t *testing.T) {
	lister := func(m *controller.Manager) { controller.Lister[builtin.ConfigMap](m) }
	index := func(m *controller.Manager) {
		must(t, m.Index(apiclient.ConfigMaps, "byName", func(o *apiclient.Object) ([]string, error) { return []string{o.Metadata.Name}, nil }))
	}
	informer := func(m *controller.Manager) { m.Informer(apiclient.ConfigMaps) }
	none := func(*controller.Manager) {}
	for _, tc := range []struct {
		name                                     string
		beforeNew, beforeFor, afterFor, whileRun func(*controller.Manager)
	}{
		{"Lister before New", lister, none, none, none},
		{"Index before New", index, none, none, none},
		{"Informer between New and For", none, informer, none, none},
		{"Lister between New and For", none, lister, none, none},
		{"Index after Complete", none, none, index, none},
		{"Lister after Complete", none, none, lister, none},
		{"Lister while the Manager runs", none, none, none, lister},
		{"Index while the Manager runs", none, none, none, index},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := shardedAlone(t)
			tc.beforeNew(m)
			b := controller.New(m, "cms", controller.Options{})
			tc.beforeFor(m)
			reconciled := make(chan string, 16)
			_, err := b.For(apiclient.ConfigMaps).Complete(controller.ReconcilerFunc(func(_ context.Context, req controller.Request) (controller.Result, error) {
				reconciled <- req.String()
				return controller.Result{}, nil
			}))
			must(t, err)
			tc.afterFor(m)
			ctx, stop := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- m.Run(ctx) }()
			if got := <-reconciled; got != "demo/a" {
				t.Errorf("reconciled %q, want demo/a", got)
			}
			tc.whileRun(m)
			if got, want := m.Sharder().Status().Sources, 1; got != want {
				t.Errorf("the Sharder fills %d sources, want %d: one informer of configmaps, the For's", got, want)
			}
			stop()
			must(t, <-done)
		})
	}
}

// shardedAlone is a sharding Manager alone in its group ("cms", identity
// "one"), on an in-memory server holding the ConfigMap demo/a.
func shardedAlone(t *testing.T) *controller.Manager {
	t.Helper()
	srv := apitest.NewServer(nil)
	t.Cleanup(srv.Close)
	srv.CreateNamespaces("demo", "ops")
	if _, err := srv.Add(apiclient.ConfigMaps, map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "a", "namespace": "demo"}}); err != nil {
		t.Fatal(err)
	}
	c, err := srv.Client(apiclient.Options{})
	must(t, err)
	m, err := controller.NewManager(c, controller.ManagerOptions{Namespace: "demo", Log: quiet, Sharding: &sharding.Config{
		Name:   "cms",
		Member: lease.Member{Namespace: "ops", Identity: "one", LeaseDuration: 4 * time.Second, RenewDeadline: time.Second, RetryPeriod: 300 * time.Millisecond},
	}})
	must(t, err)
	return m
}
