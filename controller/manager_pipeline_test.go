package controller_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/controller"
)

// The live page and /metrics read one walker of the pipeline's state, under
// one name per value: every value the page shows that /metrics has a series
// for is that series' value. The Manager is stopped first, so that nothing
// moves between the two readings; a reconcile that failed leaves a retry
// in backoff, so that not every value is compared at zero.
func TestManager_the_page_and_metrics_report_the_same_values(t *testing.T) {
	srv := apitest.NewServer(nil)
	srv.CreateNamespaces("demo")
	defer srv.Close()
	for _, name := range []string{"a", "b"} {
		if _, err := srv.Add(apiclient.ConfigMaps, map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": name, "namespace": "demo"}}); err != nil {
			t.Fatal(err)
		}
	}
	c, err := srv.Client(apiclient.Options{})
	must(t, err)
	clock := clock.NewFake() // the retry's backoff never comes due
	m, err := controller.NewManager(c, controller.ManagerOptions{Namespace: "demo", Log: quiet, Clock: clock})
	must(t, err)
	reconciled := make(chan string, 2)
	_, err = controller.New(m, "cms", controller.Options{Workers: 2}).For(apiclient.ConfigMaps).
		Complete(controller.ReconcilerFunc(func(_ context.Context, req controller.Request) (controller.Result, error) {
			defer func() { reconciled <- req.Name }()
			if req.Name == "b" {
				return controller.Result{}, errors.New("not yet")
			}
			return controller.Result{}, nil
		}))
	must(t, err)
	runUntil(t, m, func() { <-reconciled; <-reconciled })

	p := m.Pipeline()
	var page strings.Builder
	if _, err := m.Registry().WriteTo(&page); err != nil {
		t.Fatal(err)
	}
	series := parseSeries(t, page.String())
	if len(p.Informers) != 1 || len(p.Controllers) != 1 {
		t.Fatalf("%d informers, %d controllers; want 1 each", len(p.Informers), len(p.Controllers))
	}
	inf, ctl := p.Informers[0], p.Controllers[0]
	if inf.Store.Objects != 2 || ctl.Workers.Errors != 1 || ctl.Queue.Retries != 1 || ctl.Workers.Backoff != 1 {
		t.Fatalf("store %+v, queue %+v, workers %+v; want 2 objects, 1 error, 1 retry in backoff", inf.Store, ctl.Queue, ctl.Workers)
	}
	of := func(name string, labels ...string) float64 {
		t.Helper()
		v, ok := series[name+"{"+strings.Join(labels, ",")+"}"]
		if !ok {
			t.Fatalf("/metrics has no series %s{%s}:\n%s", name, strings.Join(labels, ","), page.String())
		}
		return v
	}
	backlog := 0
	for _, h := range inf.Handlers {
		backlog = max(backlog, h.Backlog)
	}
	rv, _ := strconv.ParseFloat(inf.Store.ResourceVersion, 64)
	il := []string{`informer="configmaps"`, `namespace="demo"`, `selector=""`, `version="v1"`}
	cl := []string{`controller="cms"`}
	watching := 0.0
	if inf.Reflector.State == "watching" {
		watching = 1
	}
	synced := 0.0
	if inf.Store.Synced {
		synced = 1
	}
	for _, tc := range []struct {
		what      string
		page, got float64
	}{
		{"Reflector.Relists", float64(inf.Reflector.Relists), of("kubewire_reflector_relists_total", il...)},
		{"Reflector.WatchRestarts", float64(inf.Reflector.WatchRestarts), of("kubewire_reflector_watch_restarts_total", il...)},
		{"Reflector.LastEventAge", inf.Reflector.LastEventAge, of("kubewire_reflector_last_event_age_seconds", il...)},
		{"Reflector.State", watching, of("kubewire_reflector_watching", il...)},
		{"FIFO.Depth", float64(inf.FIFO.Depth), of("kubewire_informer_fifo_depth", il...)},
		{"FIFO.Events[Added]", float64(inf.FIFO.Events["Added"]), of("kubewire_informer_events_total", append(il[:2:2], `selector=""`, `type="Added"`, `version="v1"`)...)},
		{"FIFO.Events[Replaced]", float64(inf.FIFO.Events["Replaced"]), of("kubewire_informer_events_total", append(il[:2:2], `selector=""`, `type="Replaced"`, `version="v1"`)...)},
		{"Store.Objects", float64(inf.Store.Objects), of("kubewire_informer_cache_objects", il...)},
		{"Store.ResourceVersion", rv, of("kubewire_informer_store_resource_version", il...)},
		{"Store.Synced", synced, of("kubewire_informer_synced", il...)},
		{"Handlers' largest Backlog", float64(backlog), of("kubewire_informer_handler_backlog", il...)},
		{"Queue.Depth", float64(ctl.Queue.Depth), of("workqueue_depth", `name="cms"`)},
		{"Queue.Adds", float64(ctl.Queue.Adds), of("workqueue_adds_total", `name="cms"`)},
		{"Queue.Retries", float64(ctl.Queue.Retries), of("workqueue_retries_total", `name="cms"`)},
		{"Workers.Max", float64(ctl.Workers.Max), of("kubewire_max_concurrent_reconciles", cl...)},
		{"Workers.Active", float64(ctl.Workers.Active), of("kubewire_active_workers", cl...)},
		{"Workers.Backoff", float64(ctl.Workers.Backoff), of("kubewire_reconcile_backoff_requests", cl...)},
		{"Workers.Errors", float64(ctl.Workers.Errors), of("kubewire_reconcile_errors_total", cl...)},
		{"Workers.Reconciles", float64(ctl.Workers.Reconciles), of("kubewire_reconcile_total", `controller="cms"`, `result="success"`) +
			of("kubewire_reconcile_total", `controller="cms"`, `result="error"`) + of("kubewire_reconcile_total", `controller="cms"`, `result="requeue"`) +
			of("kubewire_reconcile_total", `controller="cms"`, `result="requeue_after"`) + of("kubewire_reconcile_total", `controller="cms"`, `result="terminal"`)},
	} {
		if tc.page != tc.got {
			t.Errorf("the page's %s is %v, /metrics says %v", tc.what, tc.page, tc.got)
		}
	}
}

// parseSeries reads a /metrics page's samples, keyed "name{labels}" as
// written.
func parseSeries(t *testing.T, page string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, line := range strings.Split(page, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		key := line[:i]
		if !strings.HasSuffix(key, "}") {
			key += "{}"
		}
		out[key] = v
	}
	return out
}

// runUntil runs m until until returns, then stops it and waits for Run to
// return (an error fails the test).
func runUntil(t *testing.T, m *controller.Manager, until func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }() // waited for below
	until()
	cancel()
	must(t, <-done)
}
