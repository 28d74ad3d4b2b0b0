package metrics_test

import (
	"context"
	"io"
	"strconv"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/metrics"
)

// The hot paths: what a worker or the REST client does per reconcile or request.

func BenchmarkCounter_Inc(b *testing.B) {
	c := new(metrics.Registry).Counter("c_total", "C.")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		c.Inc()
	}
}

func BenchmarkCounter_Inc_parallel(b *testing.B) {
	c := new(metrics.Registry).Counter("c_total", "C.")
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			c.Inc()
		}
	})
}

func BenchmarkCounterVec_With_Inc(b *testing.B) {
	v := new(metrics.Registry).CounterVec("reconcile_total", "R.", "controller", "result")
	v.With("pods", "success")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		v.With("pods", "success").Inc()
	}
}

func BenchmarkCounterVec_With_Inc_parallel(b *testing.B) {
	v := new(metrics.Registry).CounterVec("reconcile_total", "R.", "controller", "result")
	v.With("pods", "success")
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			v.With("pods", "success").Inc()
		}
	})
}

func BenchmarkHistogram_Observe(b *testing.B) {
	h := new(metrics.Registry).Histogram("h_seconds", "H.", nil)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		h.Observe(0.042)
	}
}

func BenchmarkRESTClient(b *testing.B) {
	onRequest := metrics.RESTClient(new(metrics.Registry))
	info := apiclient.RequestInfo{Verb: "GET", Host: "127.0.0.1:6443", URL: "https://127.0.0.1:6443/api/v1/namespaces/default/pods/web-1", Code: 200, Took: 3 * time.Millisecond}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		onRequest(context.Background(), info)
	}
}

// A page the size of a small controller's: 20 families of 5 series.
func BenchmarkRegistry_WriteTo(b *testing.B) {
	reg := new(metrics.Registry)
	for f := 0; f < 20; f++ {
		name := "family_" + strconv.Itoa(f)
		if f%4 == 0 {
			v := reg.HistogramVec(name+"_seconds", "A histogram.", nil, "controller")
			for s := 0; s < 5; s++ {
				v.With("c" + strconv.Itoa(s)).Observe(float64(s) / 10)
			}
			continue
		}
		v := reg.CounterVec(name+"_total", "A counter.", "controller")
		for s := 0; s < 5; s++ {
			v.With("c" + strconv.Itoa(s)).Add(float64(s))
		}
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := reg.WriteTo(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
