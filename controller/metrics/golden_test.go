package metrics_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest/golden"
	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/controller/metrics"
	"github.com/kubewire/kubewire/queue"
)

// TestPage_matches_the_golden_file renders the page of a controller process after
// a little work: what /metrics shows, all in one place. Read testdata/page.golden
// to see the whole format; run go test -update to rewrite it after a deliberate
// change.
func TestPage_matches_the_golden_file(t *testing.T) {
	reg := new(metrics.Registry)

	// The REST client: a LIST, a watch, a conflict, and a refused connection.
	rest := metrics.RESTClient(reg)
	for _, r := range []apiclient.RequestInfo{
		{Verb: "GET", Host: "127.0.0.1:6443", URL: "https://127.0.0.1:6443/api/v1/namespaces/default/pods?limit=500", Code: 200, Took: 42 * time.Millisecond},
		{Verb: "GET", Host: "127.0.0.1:6443", URL: "https://127.0.0.1:6443/api/v1/namespaces/default/pods?watch=true", Code: 200, Took: 3 * time.Millisecond},
		{Verb: "PUT", Host: "127.0.0.1:6443", URL: "https://127.0.0.1:6443/apis/coordination.k8s.io/v1/namespaces/default/leases/kubewire", Code: 409, Took: 7 * time.Millisecond},
		{Verb: "PUT", Host: "127.0.0.1:6443", URL: "https://127.0.0.1:6443/apis/coordination.k8s.io/v1/namespaces/default/leases/kubewire", Code: 200, Took: 9 * time.Millisecond},
		{Verb: "PATCH", Host: "127.0.0.1:6443", URL: "https://127.0.0.1:6443/apis/apps/v1/namespaces/default/deployments/tools", Code: 0, Took: 30 * time.Second},
	} {
		rest(context.Background(), r)
	}

	// Two controllers' workqueues, on one fake clock.
	clock := clock.NewFake()
	pods := queue.New(queue.Config[string]{Clock: clock})
	deployments := queue.New(queue.Config[string]{Clock: clock})
	metrics.Workqueue(reg, "pods", pods.Metrics)
	metrics.Workqueue(reg, "deployments", deployments.Metrics)
	pods.Add("default/web-1")
	pods.Add("default/web-2")
	clock.Step(3 * time.Millisecond)
	key, _ := pods.Get()
	clock.Step(200 * time.Millisecond)
	pods.Done(key)
	pods.AddRateLimited("default/web-1")

	// The informer and the reconcile loop, as the manager would register them.
	reg.GaugeFunc("kubewire_informer_cache_size", "Objects in the informer's cache.",
		metrics.Labels{"resource": "pods"}, func() float64 { return 2 })
	events := reg.CounterVec("kubewire_informer_events_total", "Deltas applied to the cache, by type.", "resource", "type")
	events.With("pods", "Added").Add(2)
	events.With("pods", "Updated").Add(5)
	reconciles := reg.CounterVec("controller_runtime_reconcile_total", "Reconciles, by controller and result.", "controller", "result")
	reconciles.With("pods", "success").Add(3)
	reconciles.With("pods", "error").Inc()
	took := reg.HistogramVec("controller_runtime_reconcile_time_seconds", "Seconds per reconcile.", nil, "controller")
	for _, d := range []time.Duration{2 * time.Millisecond, 8 * time.Millisecond, 120 * time.Millisecond, 4 * time.Second} {
		took.With("pods").ObserveDuration(d)
	}
	metrics.LeaderElection(reg, "kubewire", func() bool { return true })

	golden.Check(t, filepath.Join("testdata", "page.golden"), render(t, reg))
}
