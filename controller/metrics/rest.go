package metrics

import (
	"context"
	"strconv"

	"github.com/kubewire/kubewire/apiclient"
)

// RESTBuckets are client-go's bounds for rest_client_request_duration_seconds:
// 5 ms to 60 s, since a LIST of a large resource can take tens of seconds.
var RESTBuckets = []float64{0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60}

// RESTClient registers the REST client's metrics in reg and returns the func that
// feeds them, to be told of each answered request (apiclient.Observer's
// Answered; controller.NewManager adopts its client with it):
//
//	client = client.Derive(apiclient.Derived{Observer: apiclient.Observer{Answered: metrics.RESTClient(reg)}})
//
// Every request the client makes (retries and watches included; a watch counts
// once, when its stream opens) then shows as
//
//	rest_client_requests_total{code="200",host="10.0.0.1:6443",method="GET"}
//	rest_client_request_duration_seconds{host="10.0.0.1:6443",verb="GET"} (histogram)
//
// with client-go's names and labels, so its dashboards work unchanged. host is
// the API server's as the client was configured with it (RequestInfo.Host),
// never parsed back from a URL. code is
// "<error>" when no response came back (a refused connection, a timeout). The
// duration is the time to the response's headers, not to the end of its body.
//
// The returned func is safe for concurrent use; each call is two map lookups, and
// allocates only for a status code of 100 or more (the code's text) and a new
// series.
func RESTClient(reg *Registry) func(context.Context, apiclient.RequestInfo) {
	requests := reg.CounterVec("rest_client_requests_total",
		"HTTP requests made to the API server, by status code, method and host.",
		"code", "host", "method")
	latency := reg.HistogramVec("rest_client_request_duration_seconds",
		"Seconds from sending a request to the API server to receiving its response headers, by verb and host.",
		RESTBuckets, "host", "verb")
	return func(_ context.Context, info apiclient.RequestInfo) {
		host := info.Host
		code := "<error>"
		if info.Code != 0 {
			code = strconv.Itoa(info.Code)
		}
		requests.With(code, host, info.Verb).Inc()
		latency.With(host, info.Verb).ObserveDuration(info.Took)
	}
}
