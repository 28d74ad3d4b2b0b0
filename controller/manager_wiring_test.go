package controller_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/controller/informer/informertest"
	"github.com/kubewire/kubewire/fifo"
	"github.com/kubewire/kubewire/store"
)

// syncedWithin waits for f, failing the test after a minute instead of hanging.
func syncedWithin(t *testing.T, what string, wait func(context.Context) bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if !wait(ctx) {
		t.Fatalf("%s never synced", what)
	}
}

func TestManager_Run_returns_nil_when_its_context_is_done_however(t *testing.T) {
	tests := []struct {
		name string
		stop func(context.Context) (context.Context, func())
	}{
		{"cancelled", func(ctx context.Context) (context.Context, func()) {
			ctx, cancel := context.WithCancel(ctx)
			return ctx, cancel
		}},
		{"cancelled_with_a_cause_as_signal_NotifyContext_does", func(ctx context.Context) (context.Context, func()) {
			ctx, cancel := context.WithCancelCause(ctx)
			return ctx, func() { cancel(errors.New("interrupt signal received")) }
		}},
		{"past_its_deadline", func(ctx context.Context) (context.Context, func()) {
			ctx, cancel := context.WithDeadline(ctx, time.Now())
			return ctx, cancel
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := controller.NewManager(newClient(t, nil), controller.ManagerOptions{Source: scripts{}.source, Log: quiet})
			must(t, err)
			m.Informer(apiclient.Pods, informer.Options{Namespace: "default"})
			ctx, stop := tt.stop(context.Background())
			stop()
			if err := m.Run(ctx); err != nil {
				t.Fatalf("Run = %v, want nil: a stop that was asked for is not a failure", err)
			}
		})
	}
}

func TestManager_two_versions_of_one_resource_are_two_informers(t *testing.T) {
	m, err := controller.NewManager(newClient(t, nil), controller.ManagerOptions{Source: scripts{}.source, Log: quiet})
	must(t, err)
	v1 := apiclient.Resource{Group: "stable.example.com", Version: "v1", Name: "foos", Kind: "Foo", Namespaced: true}
	v1alpha1 := v1
	v1alpha1.Version = "v1alpha1"
	a := m.Informer(v1, informer.Options{Namespace: "default"})
	b := m.Informer(v1alpha1, informer.Options{Namespace: "default"})
	if a == b {
		t.Fatal("foos.v1 and foos.v1alpha1 share one informer: objects of one version would be cached as the other")
	}
}

func TestManager_an_informer_and_a_controller_added_after_Run_are_started(t *testing.T) {
	src := &lockedScripts{m: scripts{}}
	m, err := controller.NewManager(newClient(t, nil), controller.ManagerOptions{Source: src.source, Log: quiet})
	must(t, err)
	pods := m.Informer(apiclient.Pods, informer.Options{Namespace: "default"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	// One object, so that the sync needs Run's processLoop: Run has started.
	must(t, src.wait(controller.InformerKey{Resource: "pods", Version: "v1", Namespace: "default"}).Sink.Replace([]*apiclient.Object{pod("p", "1")}, "1"))
	syncedWithin(t, "pods", pods.WaitForCacheSync)

	late := m.Informer(apiclient.ConfigMaps, informer.Options{Namespace: "default"})
	must(t, src.wait(controller.InformerKey{Resource: "configmaps", Version: "v1", Namespace: "default"}).Sink.Replace([]*apiclient.Object{pod("a", "2")}, "2"))
	syncedWithin(t, "the informer added after Run", late.WaitForCacheSync)
	if _, err := m.Ready(); err != nil {
		t.Fatalf("Ready after the late informer synced: %v", err)
	}
	rec := newLog(nil)
	ctrl := controller.New("late", rec, controller.Options{Log: quiet})
	ctrl.Watch(late, nil)
	m.Add(ctrl)
	select {
	case got := <-rec.calls:
		if got != "default/a err=<nil>" {
			t.Fatalf("late controller reconciled %q", got)
		}
	case <-time.After(time.Minute):
		t.Fatal("the controller added after Run never reconciled")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// lockedScripts is scripts for a Source called while the test reads it: an
// informer built after Run.
type lockedScripts struct {
	mu sync.Mutex
	m  scripts
}

func (s *lockedScripts) source(key controller.InformerKey, rc apiclient.ResourceClient, sink fifoSink) informerRunner {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m.source(key, rc, sink)
}

func (s *lockedScripts) wait(key controller.InformerKey) *scriptT {
	for {
		s.mu.Lock()
		sc, ok := s.m[key]
		s.mu.Unlock()
		if ok {
			return sc
		}
		yield()
	}
}

func TestManager_its_logger_and_a_request_hook_of_the_clients_reach_the_Reflectors(t *testing.T) {
	srv := apitest.NewServer(nil)
	t.Cleanup(srv.Close)
	client, err := srv.Client(apiclient.Options{})
	must(t, err)
	var mu sync.Mutex
	var requests []string
	client.OnRequest = func(r apiclient.RequestInfo) {
		mu.Lock()
		requests = append(requests, r.Verb+" "+r.URL)
		mu.Unlock()
	}
	var logs syncBuffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	m, err := controller.NewManager(client, controller.ManagerOptions{Log: log})
	must(t, err)
	pods := m.Informer(apiclient.Pods, informer.Options{Namespace: "default"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	syncedWithin(t, "pods", pods.WaitForCacheSync)
	cancel()
	must(t, <-done)
	if !strings.Contains(logs.String(), "reflector=pods") {
		t.Errorf("the manager's logger has no line of the Reflector:\n%s", logs.String())
	}
	mu.Lock()
	defer mu.Unlock()
	// The first may be GET /version: the Reflector asks the release once per
	// Client to choose how to list (listwatch.ListCheapest).
	if !slices.ContainsFunc(requests, func(r string) bool { return strings.Contains(r, "/api/v1/namespaces/default/pods?") }) {
		t.Errorf("the client's own OnRequest did not see the Reflector's LIST after NewManager: %q", requests)
	}
}

// syncBuffer is a bytes.Buffer several goroutines may write to.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

type (
	fifoSink       = fifo.Sink[*apiclient.Object]
	informerRunner = informer.Runner
	scriptT        = informertest.Script
)

func TestManager_an_informer_built_by_hand_is_run_counted_and_waited_for(t *testing.T) {
	m, err := controller.NewManager(newClient(t, nil), controller.ManagerOptions{Log: quiet})
	must(t, err)
	script := &informertest.Script{}
	inf := informer.New(informer.Options{Name: "widgets", Source: script.Source})
	must(t, m.AddInformer(inf))
	if err := m.AddInformer(inf); err == nil {
		t.Fatal("adopting one informer twice: no error")
	}
	if _, err := m.Ready(); err == nil || !strings.Contains(err.Error(), "widgets") {
		t.Fatalf("Ready before the adopted informer synced = %v, want it named", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	must(t, script.Sink.Replace([]*apiclient.Object{pod("a", "1")}, "1"))
	syncedWithin(t, "widgets", inf.WaitForCacheSync)
	if _, err := m.Ready(); err != nil {
		t.Fatalf("Ready after the adopted informer synced: %v", err)
	}
	if page, want := scrape(t, m.Registry()), `kubewire_informer_cache_objects{informer="widgets",namespace="",selector="",version=""} 1`; !strings.Contains(page, want) {
		t.Errorf("metrics page lacks %q:\n%s", want, page)
	}
	cancel()
	must(t, <-done)
}

func TestManager_Informer_takes_the_options_of_a_hand_built_informer(t *testing.T) {
	src := scripts{}
	m, err := controller.NewManager(newClient(t, nil), controller.ManagerOptions{Source: src.source, Log: quiet})
	must(t, err)
	byName := store.Indexers[*apiclient.Object]{"name": func(o *apiclient.Object) ([]string, error) { return []string{o.Metadata.Name}, nil }}
	pods := m.Informer(apiclient.Pods, informer.Options{Namespace: "default", LabelSelector: "app=web", Indexers: byName,
		Transform: func(o *apiclient.Object) (*apiclient.Object, error) {
			o.Metadata.Labels = map[string]string{"seen": "yes"}
			return o, nil
		}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	must(t, waitScript(src, controller.InformerKey{Resource: "pods", Version: "v1", Namespace: "default", LabelSelector: "app=web"}).Sink.Replace([]*apiclient.Object{pod("a", "1")}, "1"))
	syncedWithin(t, "pods", pods.WaitForCacheSync)
	got, err := pods.ByIndex("name", "a")
	must(t, err)
	if len(got) != 1 || got[0].Metadata.Labels["seen"] != "yes" {
		t.Fatalf("ByIndex(name, a) = %v; want the pod, transformed", got)
	}
	cancel()
	must(t, <-done)
}
