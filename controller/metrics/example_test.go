package metrics_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/metrics"
)

// A registry with a counter family, a gauge read at scrape time, and a histogram,
// rendered as /metrics shows it.
func ExampleRegistry() {
	reg := new(metrics.Registry)

	reconciles := reg.CounterVec("reconcile_total", "Reconciles, by result.", "controller", "result")
	reconciles.With("pods", "success").Add(41)
	reconciles.With("pods", "error").Inc()

	cached := 3
	reg.GaugeFunc("informer_cache_size", "Objects in the cache.", metrics.Labels{"resource": "pods"},
		func() float64 { return float64(cached) })

	took := reg.Histogram("reconcile_seconds", "Seconds per reconcile.", []float64{0.01, 0.1})
	took.ObserveDuration(4 * time.Millisecond)
	took.ObserveDuration(250 * time.Millisecond)

	cached = 5 // read when the page is rendered, not when registered
	_, _ = reg.WriteTo(os.Stdout)
	// Output:
	// # HELP informer_cache_size Objects in the cache.
	// # TYPE informer_cache_size gauge
	// informer_cache_size{resource="pods"} 5
	// # HELP reconcile_seconds Seconds per reconcile.
	// # TYPE reconcile_seconds histogram
	// reconcile_seconds_bucket{le="0.01"} 1
	// reconcile_seconds_bucket{le="0.1"} 1
	// reconcile_seconds_bucket{le="+Inf"} 2
	// reconcile_seconds_sum 0.254
	// reconcile_seconds_count 2
	// # HELP reconcile_total Reconciles, by result.
	// # TYPE reconcile_total counter
	// reconcile_total{controller="pods",result="error"} 1
	// reconcile_total{controller="pods",result="success"} 41
}

// The REST client reports every request; RESTClient counts them as client-go does.
func ExampleRESTClient() {
	reg := new(metrics.Registry)
	answered := metrics.RESTClient(reg) // an apiclient.Observer's Answered, in a real program
	ctx := context.Background()
	answered(ctx, apiclient.RequestInfo{Verb: "GET", Host: "10.0.0.1:6443", URL: "https://10.0.0.1:6443/api/v1/pods", Code: 200, Took: 20 * time.Millisecond})
	answered(ctx, apiclient.RequestInfo{Verb: "GET", Host: "10.0.0.1:6443", URL: "https://10.0.0.1:6443/api/v1/pods", Code: 200, Took: 30 * time.Millisecond})
	answered(ctx, apiclient.RequestInfo{Verb: "PUT", Host: "10.0.0.1:6443", URL: "https://10.0.0.1:6443/apis/coordination.k8s.io/v1/namespaces/default/leases/kubewire", Code: 409})

	fmt.Println(reg.CounterVec("rest_client_requests_total",
		"HTTP requests made to the API server, by status code, method and host.",
		"code", "host", "method").With("200", "10.0.0.1:6443", "GET").Value())
	// Output: 2
}

// /readyz tells a leader from a standby, and says why when it is not ready.
func ExampleHandler() {
	synced, leading := false, false
	h := metrics.Handler(new(metrics.Registry), func() (string, error) {
		if !synced {
			return "", errors.New("informer pods not synced")
		}
		if leading {
			return "leader", nil
		}
		return "standby", nil
	})
	probe := func() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/readyz", nil))
		fmt.Println(rec.Code, rec.Body.String())
	}
	probe()
	synced = true
	probe()
	leading = true
	probe()
	// Output:
	// 503 not ready: informer pods not synced
	// 200 ok (standby)
	// 200 ok (leader)
}

// The one listener of a controller process. It compiles, and would serve until
// interrupted; so it has no Output.
func ExampleServer() {
	reg := new(metrics.Registry)
	srv := metrics.Server{Addr: ":8080", Registry: reg, Ready: func() (string, error) { return "leader", nil }}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	if err := srv.Run(ctx); err != nil {
		fmt.Println(err)
	}
}
