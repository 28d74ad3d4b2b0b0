package controller_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/apiclient/kubeconfig"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/trace"
)

// The clock and the logger are given once. A client built with neither (the
// wall clock, slog.Default) handed to a Manager with a fake clock and a logger
// of its own: the Manager's client waits out a Retry-After on the Manager's
// clock, and says so in the Manager's log. (The Manager used the client as
// given: the wait took a second of wall-clock time and the line went to
// slog.Default.)
func TestManager_its_client_waits_on_its_clock_and_logs_to_its_logger(t *testing.T) {
	var asked atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if asked.Add(1) == 1 {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"major":"1","minor":"37","gitVersion":"v1.37.2"}`))
	}))
	defer ts.Close()
	c, err := apiclient.New(&kubeconfig.Config{Server: ts.URL, Source: "test"}, apiclient.Options{})
	must(t, err)
	clock := clock.NewFake()
	var logs syncBuffer
	m, err := controller.NewManager(c, controller.ManagerOptions{Namespace: "default", Clock: clock, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	must(t, err)
	if got := m.Client().Clock(); got != controller.Clock(clock) {
		t.Errorf("the Manager's client's clock is %T, want the Manager's", got)
	}

	done := make(chan error, 1)
	go func() { _, err := m.Client().ServerVersion(context.Background()); done <- err }()
	due := make(chan struct{})
	go func() { clock.BlockUntilDue(time.Second); close(due) }()
	select {
	case <-due:
		clock.Step(time.Second)
	case err := <-done:
		t.Fatalf("the Retry-After wait did not go through the Manager's clock (the request ended first: %v)", err)
	}
	must(t, <-done)
	if !strings.Contains(logs.String(), "retry later") {
		t.Fatalf("the client's Retry-After line is not in the Manager's log:\n%s", logs.String())
	}
}

// NewManager adopts the client it is given: a request made through that
// client — as README's reconciler would, holding the client it made rather
// than m.Client() — is the Manager's all the same: traced, counted on
// /metrics, and told to the client's own Observer first.
func TestManager_adopts_the_client_it_is_given(t *testing.T) {
	srv := apitest.NewServer(nil)
	srv.CreateNamespaces("demo")
	defer srv.Close()
	var told atomic.Int32
	c, err := srv.Client(apiclient.Options{Observer: apiclient.Observer{
		Answered: func(context.Context, apiclient.RequestInfo) { told.Add(1) },
	}})
	must(t, err)
	var mu sync.Mutex
	var traced []string
	m, err := controller.NewManager(c, controller.ManagerOptions{Namespace: "default", Log: quiet, Trace: func(e trace.Event) {
		mu.Lock()
		defer mu.Unlock()
		traced = append(traced, e.Verb+" "+e.Resource+" "+e.Key+" "+e.Outcome)
	}})
	must(t, err)
	if m.Client() != c {
		t.Fatal("Client is not the client the Manager was given")
	}
	ctx := context.Background()
	cm := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "a", "namespace": "default"}}
	if _, err := c.Resource(apiclient.ConfigMaps).Namespace("default").Create(ctx, cm, apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	_, _ = c.Resource(apiclient.ConfigMaps).Namespace("default").Get(ctx, "b")
	if got, want := told.Load(), int32(2); got != want {
		t.Fatalf("the client's own Observer was told of %d requests, want %d", got, want)
	}
	mu.Lock()
	got := strings.Join(traced, "\n")
	mu.Unlock()
	if want := "POST configmaps default sent\nPOST configmaps default answered"; got != want {
		t.Errorf("traced:\n%s\nwant:\n%s", got, want)
	}
	var page strings.Builder
	if _, err := m.Registry().WriteTo(&page); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`rest_client_requests_total{code="201",host="` + hostOf(srv.URL) + `",method="POST"} 1`, `rest_client_requests_total{code="404",host="` + hostOf(srv.URL) + `",method="GET"} 1`} {
		if !strings.Contains(page.String(), want+"\n") {
			t.Errorf("/metrics has no line %s:\n%s", want, page.String())
		}
	}
}

// A client has one owner: a second Manager on it is an error (each would
// count, trace and guard the other's requests as its own), and the first
// Manager's observer stays the only one. A client Derived from it before
// either is one the second may adopt.
func TestManager_a_client_adopted_once(t *testing.T) {
	srv := apitest.NewServer(nil)
	defer srv.Close()
	c, err := srv.Client(apiclient.Options{})
	must(t, err)
	spare := c.Derive(apiclient.Derived{})
	first, err := controller.NewManager(c, controller.ManagerOptions{Namespace: "default", Log: quiet})
	must(t, err)
	if _, err := controller.NewManager(c, controller.ManagerOptions{Namespace: "default", Log: quiet}); err == nil {
		t.Fatal("a second Manager on the same client: no error")
	}
	second, err := controller.NewManager(spare, controller.ManagerOptions{Namespace: "default", Log: quiet})
	must(t, err)
	_, _ = c.Resource(apiclient.ConfigMaps).Namespace("default").Get(context.Background(), "a")
	for _, m := range []*controller.Manager{first, second} {
		var page strings.Builder
		if _, err := m.Registry().WriteTo(&page); err != nil {
			t.Fatal(err)
		}
		got := strings.Count(page.String(), `rest_client_requests_total{code="404"`)
		if want := map[*controller.Manager]int{first: 1, second: 0}[m]; got != want {
			t.Errorf("%d series of the GET, want %d:\n%s", got, want, page.String())
		}
	}
}

// hostOf is the host[:port] of a URL.
func hostOf(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		panic(err)
	}
	return p.Host
}

// A Reconcile's context carries the Manager's logger, naming the controller
// and the Request (controller-runtime's log.FromContext).
func TestLogFrom_a_Reconcile_logs_with_its_controller_and_Request(t *testing.T) {
	srv := apitest.NewServer(nil)
	srv.CreateNamespaces("demo")
	defer srv.Close()
	if _, err := srv.Add(apiclient.ConfigMaps, map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "a", "namespace": "demo"}}); err != nil {
		t.Fatal(err)
	}
	c, err := srv.Client(apiclient.Options{})
	must(t, err)
	var logs syncBuffer
	m, err := controller.NewManager(c, controller.ManagerOptions{Namespace: "demo", Log: slog.New(slog.NewTextHandler(&logs, nil))})
	must(t, err)
	reconciled := make(chan struct{}, 1)
	_, err = controller.New(m, "cms", controller.Options{}).For(apiclient.ConfigMaps).
		Complete(controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
			controller.LogFrom(ctx).Info("reconciling")
			select {
			case reconciled <- struct{}{}:
			default:
			}
			return controller.Result{}, nil
		}))
	must(t, err)
	runUntil(t, m, func() { <-reconciled })
	if !strings.Contains(logs.String(), `msg=reconciling controller=cms request=demo/a`) {
		t.Fatalf("no line of the Reconcile with its controller and Request:\n%s", logs.String())
	}
	if got := controller.LogFrom(context.Background()); got != slog.Default() {
		t.Fatal("LogFrom outside a Reconcile is not slog.Default()")
	}
}
