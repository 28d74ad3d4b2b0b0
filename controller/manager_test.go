package controller_test

import (
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/controller/leaderelection"
	"github.com/kubewire/kubewire/controller/lease"
	"github.com/kubewire/kubewire/controller/metrics"
	"github.com/kubewire/kubewire/fifo"
)

func TestManager_shares_one_informer_per_resource_namespace_and_selector(t *testing.T) {
	m := newTestManager(t, controller.ManagerOptions{})
	a := m.Informer(apiclient.Pods, controller.WithLabels("app=web"))
	b := m.Informer(apiclient.Pods, controller.WithLabels("app=web"))
	c := m.Informer(apiclient.Pods)
	d := m.Informer(apiclient.Pods, controller.OnlyMetadata())
	if a != b || a == c || c == d {
		t.Fatal("informers are shared by (resource, namespace, selectors, metadata-only)")
	}
	if got := m.Informer(apiclient.Namespaces); got == c {
		t.Fatal("namespaces and pods share an informer")
	}
}

func TestManager_runs_controllers_and_serves_their_metrics(t *testing.T) {
	m := newTestManager(t, controller.ManagerOptions{Clock: controller.RealClock{}})
	rec := newLog(map[string][]error{"default/b": {errors.New("transient")}})
	ctrl, err := controller.New(m.Manager, "pod-printer", controller.Options{}).For(apiclient.Pods).Complete(rec)
	must(t, err)
	m.start(t)
	must(t, m.scripts.of(t, "pods").Sink.Replace([]*apiclient.Object{pod("a", "1"), pod("b", "2")}, "2"))
	got := map[string]bool{<-rec.calls: true, <-rec.calls: true}
	if !got["default/a err=<nil>"] || !got["default/b err=transient"] {
		t.Fatalf("reconciles: %v", got)
	}
	<-rec.calls // b's retry, after 5 ms of real backoff
	// rec hears of a call before Reconcile returns; the page counts it after.
	waitUntil(t, "the retry's result counted", func() bool { return ctrl.Stats().Reconciles == 3 })
	page := scrape(t, m.Registry())
	for _, want := range []string{
		`kubewire_informer_cache_objects{informer="pods",namespace="default",selector="",version="v1"} 2`,
		`kubewire_reconcile_total{controller="pod-printer",result="success"} 2`,
		`kubewire_reconcile_total{controller="pod-printer",result="error"} 1`,
		`kubewire_reconcile_total{controller="pod-printer",result="stale_skip"} 0`,
		`kubewire_reconcile_backoff_requests{controller="pod-printer"} 0`,
		`kubewire_reconcile_errors_total{controller="pod-printer"} 1`,
		`kubewire_informer_events_total{informer="pods",namespace="default",selector="",type="Replaced",version="v1"} 2`,
		`workqueue_adds_total{name="pod-printer"}`,
		`kubewire_informer_store_resource_version{informer="pods",namespace="default",selector="",version="v1"} `,
		`kubewire_informer_processing_seconds_bucket{informer="pods",namespace="default",selector="",version="v1",le="1e-05"} `,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("metrics page lacks %q:\n%s", want, page)
		}
	}
	if err := m.stop(); err != nil {
		t.Fatalf("Run after cancel: %v", err)
	}
}

func TestManager_one_failing_informer_stops_everything(t *testing.T) {
	m := newTestManager(t, controller.ManagerOptions{
		Source: func(controller.InformerKey, apiclient.ResourceClient, fifo.Sink[*apiclient.Object]) informer.Runner {
			return failing{}
		}})
	m.Informer(apiclient.Pods)
	err := m.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "informer pods: forbidden") {
		t.Fatalf("Run = %v, want the informer's error", err)
	}
}

func TestManager_with_leader_election_reconciles_only_while_leading(t *testing.T) {
	clock := clock.NewFake()
	m := newTestManager(t, controller.ManagerOptions{Clock: clock,
		LeaderElection: leaderelection.ForLease("default", "kubewire", "me")})
	leases := apiclient.NewTyped[lease.Lease](m.Client()).Namespace("default")
	// Someone else holds the lease, renewed just now.
	_, err := leases.Create(context.Background(), &lease.Lease{Metadata: apiclient.ObjectMeta{Name: "kubewire"},
		Spec: lease.Spec{HolderIdentity: "other", LeaseDurationSeconds: 15,
			RenewTime: lease.NewMicroTime(clock.Now())}}, apiclient.WriteOptions{})
	must(t, err)
	rec := newLog(nil)
	_, err = controller.New(m.Manager, "pods", controller.Options{}).For(apiclient.Pods).Complete(rec)
	must(t, err)
	pods := m.Informer(apiclient.Pods)
	m.start(t)
	must(t, m.scripts.of(t, "pods").Sink.Replace([]*apiclient.Object{pod("a", "1")}, "1"))
	// Standby: the cache fills, nothing is reconciled.
	if !pods.WaitForCacheSync(t.Context()) {
		t.Fatal("standby cache never synced")
	}
	select {
	case got := <-rec.calls:
		t.Fatalf("a standby reconciled %q", got)
	default:
	}
	// The other holder stops renewing; 15 s later (and a retry) this one leads.
	for i := 0; i < 20; i++ {
		clock.BlockUntilWaiters(1)
		clock.Step(2 * time.Second)
		select {
		case got := <-rec.calls:
			if got != "default/a err=<nil>" {
				t.Fatalf("leader reconciled %q", got)
			}
			if err := m.stop(); err != nil {
				t.Fatal(err)
			}
			l, err := leases.Get(context.Background(), "kubewire")
			must(t, err)
			if l.Spec.HolderIdentity != "" {
				t.Fatalf("lease still held by %q after a clean stop", l.Spec.HolderIdentity)
			}
			return
		default:
		}
	}
	t.Fatal("never took over the expired lease")
}

type failing struct{}

func (failing) Run(context.Context) error { return errors.New("forbidden") }

func scrape(t *testing.T, reg *metrics.Registry) string {
	t.Helper()
	ts := httptest.NewServer(metrics.Handler(reg, nil))
	defer ts.Close()
	resp, err := ts.Client().Get(ts.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// runnerFunc adapts a function to informer.Runner.
type runnerFunc func(context.Context) error

func (f runnerFunc) Run(ctx context.Context) error { return f(ctx) }

// A runner added before Run and one added while it runs both run until ctx ends,
// and Run returns only after both have; a runner's error stops the Manager.
func TestManager_runs_what_AddRunner_is_given(t *testing.T) {
	m := newTestManager(t, controller.ManagerOptions{})
	started, ended := make(chan string, 2), make(chan string, 2)
	runner := func(name string) informer.Runner {
		return runnerFunc(func(ctx context.Context) error {
			started <- name
			<-ctx.Done()
			ended <- name
			return nil
		})
	}
	m.AddRunner("early", runner("early"))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	<-started
	m.AddRunner("late", runner("late"))
	<-started
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if len(ended) != 2 {
		t.Fatalf("Run returned with %d of 2 runners ended", len(ended))
	}

	m2 := newTestManager(t, controller.ManagerOptions{})
	m2.AddRunner("broken", runnerFunc(func(context.Context) error { return errors.New("cannot start") }))
	if err := m2.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "cannot start") {
		t.Fatalf("Run with a failing runner: %v", err)
	}
}

// The reconcile metrics a dashboard built for controller-runtime expects: a
// duration histogram on its buckets, terminal errors apart, workers busy and
// allowed.
func TestManager_serves_reconcile_durations_and_outcomes(t *testing.T) {
	m := newTestManager(t, controller.ManagerOptions{})
	clock := m.clock
	ctrl, err := controller.New(m.Manager, "timed", controller.Options{Workers: 1}). // one at a time: each sees only its own 120 ms
												For(apiclient.Pods).
												Complete(controller.ReconcilerFunc(func(_ context.Context, req controller.Request) (controller.Result, error) {
			clock.Step(120 * time.Millisecond) // each Reconcile "takes" 120 ms of the fake clock
			if req.Name == "bad" {
				return controller.Result{}, controller.Terminal(errors.New("spec cannot work"))
			}
			return controller.Result{}, nil
		}))
	must(t, err)
	m.start(t)
	must(t, m.scripts.of(t, "pods").Sink.Replace([]*apiclient.Object{pod("good", "1"), pod("bad", "2")}, "2"))
	// Both reconciled, and their outcomes counted: a worker counts the reconcile,
	// then the terminal error, then tells the queue it is Done.
	waitUntil(t, "both reconciles counted and done", func() bool {
		return ctrl.Stats().Reconciles >= 2 && ctrl.Queue().Metrics().Processing == 0
	})
	page := scrape(t, m.Registry())
	for _, want := range []string{
		`kubewire_reconcile_time_seconds_bucket{controller="timed",le="0.1"} 0`,
		`kubewire_reconcile_time_seconds_bucket{controller="timed",le="0.15"} 2`,
		`kubewire_reconcile_time_seconds_count{controller="timed"} 2`,
		`kubewire_reconcile_errors_total{controller="timed"} 1`,
		`kubewire_reconcile_terminal_errors_total{controller="timed"} 1`,
		`kubewire_active_workers{controller="timed"} 0`,
		`kubewire_max_concurrent_reconciles{controller="timed"} 1`,
	} {
		if !strings.Contains(page, want+"\n") {
			t.Errorf("metrics page lacks %q", want)
		}
	}
}

// A runner the Manager cannot see inside (a webhook server) joins /readyz
// through AddReadyCheck: the replica is not ready while the check fails, and
// the check's name says why.
func TestManager_is_not_ready_while_a_ready_check_fails(t *testing.T) {
	m := newTestManager(t, controller.ManagerOptions{})
	failing := errors.New("no certificate yet")
	m.AddReadyCheck("webhooks", func() error { return failing })
	if _, err := m.Ready(); err == nil || !strings.Contains(err.Error(), "webhooks: no certificate yet") {
		t.Fatalf("Ready with a failing check: %v", err)
	}
	failing = nil
	if _, err := m.Ready(); err != nil {
		t.Fatalf("Ready with the check passing: %v", err)
	}
}
