package controller_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/kubeconfig"
	"github.com/kubewire/kubewire/controller"
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
	clock := apitest.NewClock()
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

// NewManager leaves the client it is given as it was: a request made through
// it is not the Manager's (its metrics do not count it), and the Manager's own
// requests are told to the client's Observer first.
func TestManager_does_not_change_the_client_it_is_given(t *testing.T) {
	srv := apitest.NewServer(nil)
	srv.CreateNamespaces("demo")
	defer srv.Close()
	var told atomic.Int32
	c, err := srv.Client(apiclient.Options{Observer: apiclient.Observer{
		Answered: func(context.Context, apiclient.RequestInfo) { told.Add(1) },
	}})
	must(t, err)
	m, err := controller.NewManager(c, controller.ManagerOptions{Namespace: "default", Log: quiet})
	must(t, err)
	ctx := context.Background()
	_, _ = c.Resource(apiclient.ConfigMaps).Namespace("default").Get(ctx, "a")
	_, _ = m.Client().Resource(apiclient.ConfigMaps).Namespace("default").Get(ctx, "b")
	if got, want := told.Load(), int32(2); got != want {
		t.Fatalf("the client's own Observer was told of %d requests, want %d (its own and the Manager's)", got, want)
	}
	var page strings.Builder
	if _, err := m.Registry().WriteTo(&page); err != nil {
		t.Fatal(err)
	}
	var counted []string
	for _, line := range strings.Split(page.String(), "\n") {
		if strings.HasPrefix(line, `rest_client_requests_total{code="404"`) {
			counted = append(counted, line)
		}
	}
	if len(counted) != 1 || !strings.HasSuffix(counted[0], `method="GET"} 1`) {
		t.Fatalf("want the Manager's one GET counted, not the client's: %q", counted)
	}
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
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	<-reconciled
	cancel()
	must(t, <-done)
	if !strings.Contains(logs.String(), `msg=reconciling controller=cms request=demo/a`) {
		t.Fatalf("no line of the Reconcile with its controller and Request:\n%s", logs.String())
	}
	if got := controller.LogFrom(context.Background()); got != slog.Default() {
		t.Fatal("LogFrom outside a Reconcile is not slog.Default()")
	}
}
