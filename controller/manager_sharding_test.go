package controller_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/controller/metrics"
	"github.com/kubewire/kubewire/controller/sharding"
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

// shardReplica is one sharded Manager on the in-memory API server (which does
// not serve shardSelector: the replicas filter for themselves).
type shardReplica struct {
	m    *controller.Manager
	stop context.CancelFunc
	done chan error
}

func startShardReplica(t *testing.T, srv *apitest.Server, id string, w wake, reconciled func(id, key string)) *shardReplica {
	t.Helper()
	c, err := srv.Client(apiclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := controller.NewManager(c, controller.ManagerOptions{Log: quiet, Sharding: &sharding.Config{
		Namespace: "ops", Name: "cms", Identity: id, Logger: slog.New(w),
		LeaseDuration: 3 * time.Second, RenewDeadline: 2 * time.Second, RetryPeriod: 500 * time.Millisecond,
	}})
	if err != nil {
		t.Fatal(err)
	}
	cms := m.Informer(apiclient.ConfigMaps, informer.Options{Namespace: "demo", Sharded: true})
	ctrl := controller.New("cms", controller.ReconcilerFunc(func(_ context.Context, req controller.Request) (controller.Result, error) {
		reconciled(id, req.String())
		return controller.Result{}, nil
	}), controller.Options{Log: quiet})
	ctrl.Watch(cms, nil)
	m.Add(ctrl)
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
	a := startShardReplica(t, srv, "a", w, reconciled)
	b := startShardReplica(t, srv, "b", w, reconciled)
	defer func() {
		for _, r := range []*shardReplica{a, b} {
			r.stop()
			<-r.done
		}
	}()
	waitUntil := func(what string, cond func() bool) {
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
	halves := sharding.Assign([]string{"a", "b"})
	waitUntil("a and b each serving half", func() bool {
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
	waitUntil("40 objects reconciled", func() bool { mu.Lock(); defer mu.Unlock(); return len(byKey) == 40 })
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
	waitUntil("a serving everything", func() bool { return a.m.Sharder().Status().Serving.Equal(sharding.Set{sharding.Full}) })
	// What b served is a's now, and a reconciles it without any change to it.
	waitUntil("a reconciling b's objects", func() bool {
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
