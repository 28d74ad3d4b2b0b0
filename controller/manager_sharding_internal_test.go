package controller

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/controller/sharding"
	"github.com/kubewire/kubewire/controller/trace"
	"github.com/kubewire/kubewire/fifo"
	"github.com/kubewire/kubewire/listwatch"
)

// fakeRing is a shard ring of one replica whose share the test sets by name.
type fakeRing struct {
	mu      sync.Mutex
	mine    map[string]bool
	served  []func(newly func(*apiclient.Object) bool)
	sources int
}

func (r *fakeRing) Run(ctx context.Context) error { <-ctx.Done(); return nil }

func (r *fakeRing) Admit(ctx context.Context, obj *apiclient.Object) (context.Context, func(), bool) {
	if obj == nil || !r.Owns(obj) {
		return nil, nil, false
	}
	return ctx, func() {}, true
}

func (r *fakeRing) Owns(obj *apiclient.Object) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.mine[obj.Metadata.Name]
}

func (r *fakeRing) Served(fn func(newly func(*apiclient.Object) bool)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.served = append(r.served, fn)
}

func (r *fakeRing) Source(_ *informer.Informer, _ apiclient.ResourceClient, lw listwatch.Options, sink fifo.Sink[*apiclient.Object],
	build func(listwatch.Options, fifo.Sink[*apiclient.Object]) informer.Runner) informer.Runner {
	r.mu.Lock()
	r.sources++
	r.mu.Unlock()
	return build(lw, sink)
}

func (r *fakeRing) Status() sharding.Status { return sharding.Status{Identity: "fake"} }

// take makes name this replica's, and says so to whoever asked (Served).
func (r *fakeRing) take(name string) {
	r.mu.Lock()
	r.mine[name] = true
	fns := slices.Clone(r.served)
	r.mu.Unlock()
	for _, fn := range fns {
		fn(func(obj *apiclient.Object) bool { return obj.Metadata.Name == name })
	}
}

// The Manager needs of a shard ring what shardRing names, and no more: a
// ring that is no Sharder fills the For's informer (asked for before For, by
// a Lister), gates the controller's Requests by what it says is this
// replica's (another's is dropped, not retried), and a change of share queues
// what became this replica's.
func TestManager_sharding_through_the_ring_interface_alone(t *testing.T) {
	srv := apitest.NewServer(nil)
	srv.CreateNamespaces("demo", "ops")
	defer srv.Close()
	for _, name := range []string{"mine", "theirs"} {
		if _, err := srv.Add(apiclient.ConfigMaps, map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": name, "namespace": "demo"}}); err != nil {
			t.Fatal(err)
		}
	}
	client, err := srv.Client(apiclient.Options{})
	must(t, err)
	skipped := make(chan string, 16)
	m, err := NewManager(client, ManagerOptions{Namespace: "demo", Log: slog.New(slog.DiscardHandler), Trace: func(e trace.Event) {
		if e.Stage == trace.Controller && e.Verb == "skip" {
			skipped <- e.Key
		}
	}})
	must(t, err)
	ring := &fakeRing{mine: map[string]bool{"mine": true}}
	m.join(ring)

	_ = m.Informer(apiclient.ConfigMaps) // a Lister's, before For
	reconciled := make(chan string, 16)
	_, err = New(m, "cms", Options{}).For(apiclient.ConfigMaps).
		Complete(ReconcilerFunc(func(_ context.Context, req Request) (Result, error) {
			reconciled <- req.String()
			return Result{}, nil
		}))
	must(t, err)
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	if got, want := <-reconciled, "demo/mine"; got != want {
		t.Fatalf("reconciled %q; want %q", got, want)
	}
	if got, want := <-skipped, "demo/theirs"; got != want {
		t.Fatalf("skipped %q; want %q", got, want)
	}
	ring.take("theirs")
	if got, want := <-reconciled, "demo/theirs"; got != want {
		t.Fatalf("reconciled %q after the share changed; want %q", got, want)
	}
	stop()
	must(t, <-done)
	if got, want := ring.sources, 1; got != want {
		t.Errorf("the ring fills %d sources; want %d (the Lister's informer is the For's)", got, want)
	}
}
