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
			m := newTestManager(t, controller.ManagerOptions{})
			m.Informer(apiclient.Pods)
			ctx, stop := tt.stop(context.Background())
			stop()
			if err := m.Run(ctx); err != nil {
				t.Fatalf("Run = %v, want nil: a stop that was asked for is not a failure", err)
			}
		})
	}
}

func TestManager_two_versions_of_one_resource_are_two_informers(t *testing.T) {
	m := newTestManager(t, controller.ManagerOptions{})
	v1 := apiclient.Resource{Group: "stable.example.com", Version: "v1", Name: "foos", Kind: "Foo", Namespaced: true}
	v1alpha1 := v1
	v1alpha1.Version = "v1alpha1"
	a := m.Informer(v1)
	b := m.Informer(v1alpha1)
	if a == b {
		t.Fatal("foos.v1 and foos.v1alpha1 share one informer: objects of one version would be cached as the other")
	}
}

func TestManager_an_informer_and_a_controller_added_after_Run_are_started(t *testing.T) {
	m := newTestManager(t, controller.ManagerOptions{Clock: controller.RealClock{}})
	pods := m.Informer(apiclient.Pods)
	m.start(t)
	// One object, so that the sync needs Run's processLoop: Run has started.
	must(t, m.scripts.of(t, "pods").Sink.Replace([]*apiclient.Object{pod("p", "1")}, "1"))
	syncedWithin(t, "pods", pods.WaitForCacheSync)

	late := m.Informer(apiclient.ConfigMaps)
	must(t, m.scripts.of(t, "configmaps").Sink.Replace([]*apiclient.Object{pod("a", "2")}, "2"))
	syncedWithin(t, "the informer added after Run", late.WaitForCacheSync)
	if _, err := m.Ready(); err != nil {
		t.Fatalf("Ready after the late informer synced: %v", err)
	}
	rec := newLog(nil)
	_, err := controller.New(m.Manager, "late", controller.Options{}).For(apiclient.ConfigMaps).Complete(rec)
	must(t, err)
	select {
	case got := <-rec.calls:
		if got != "default/a err=<nil>" {
			t.Fatalf("late controller reconciled %q", got)
		}
	case <-time.After(time.Minute):
		t.Fatal("the controller added after Run never reconciled")
	}
	must(t, m.stop())
}

func TestManager_its_logger_and_a_request_hook_of_the_clients_reach_the_Reflectors(t *testing.T) {
	srv := apitest.NewServer(nil)
	t.Cleanup(srv.Close)
	client, err := srv.Client(apiclient.Options{})
	must(t, err)
	var mu sync.Mutex
	var requests []string
	client = client.Derive(apiclient.Derived{Observer: apiclient.Observer{Answered: func(_ context.Context, r apiclient.RequestInfo) {
		mu.Lock()
		requests = append(requests, r.Verb+" "+r.URL)
		mu.Unlock()
	}}})
	var logs syncBuffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	m, err := controller.NewManager(client, controller.ManagerOptions{Namespace: "default", Log: log})
	must(t, err)
	pods := m.Informer(apiclient.Pods)
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
		t.Errorf("the client's own Observer did not see the Reflector's LIST after NewManager: %q", requests)
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

// An index is given once: the objects cached before it are indexed, a second
// index of another name on the same informer joins the first, and a second of
// the same name is refused, never dropped in silence.
func TestManager_Index_merges_indexes_and_refuses_a_name_given_twice(t *testing.T) {
	m := newTestManager(t, controller.ManagerOptions{})
	byName := func(o *apiclient.Object) ([]string, error) { return []string{o.Metadata.Name}, nil }
	byLabel := func(o *apiclient.Object) ([]string, error) { return []string{o.Metadata.Labels["app"]}, nil }
	must(t, m.Index(apiclient.Pods, "name", byName, controller.WithLabels("app=web")))
	pods := m.Informer(apiclient.Pods, controller.WithLabels("app=web"))
	m.start(t)
	web := pod("a", "1")
	web.Metadata.Labels = map[string]string{"app": "web"}
	must(t, m.scripts.of(t, "pods").Sink.Replace([]*apiclient.Object{web}, "1"))
	syncedWithin(t, "pods", pods.WaitForCacheSync)
	must(t, m.Index(apiclient.Pods, "app", byLabel, controller.WithLabels("app=web"))) // after Run, over what is cached
	if err := m.Index(apiclient.Pods, "name", byLabel, controller.WithLabels("app=web")); err == nil || !strings.Contains(err.Error(), `"name"`) {
		t.Fatalf("a second index named %q: %v, want an error naming it", "name", err)
	}
	for index, value := range map[string]string{"name": "a", "app": "web"} {
		got, err := pods.ByIndex(index, value)
		if err != nil || len(got) != 1 || got[0].Metadata.Name != "a" {
			t.Fatalf("ByIndex(%s, %s) = %v, %v; want the pod", index, value, got, err)
		}
	}
}
