package informer_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/kubeconfig"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/fifo"
	"github.com/kubewire/kubewire/listwatch"
)

// BenchmarkInformer_10k_pods_then_10k_events runs the whole pipeline — Reflector,
// the in-order FIFO, store with its namespace index, one handler — over an in-memory
// server: a LIST of 10,000 copies of a real 5.2 KB pod, then a watch of 10,000
// MODIFIED events. One op is one informer from start to the last event handled.
// It reports the heap the synced cache holds per pod (store, index and FIFO
// included), and the rate at which the watch's events reach the handler.
func BenchmarkInformer_10k_pods_then_10k_events(b *testing.B) {
	const n = 10000
	list, stream := informerBenchData(b, n)
	b.SetBytes(int64(len(list) + len(stream)))
	b.ReportAllocs()
	b.ResetTimer()
	var heapPerPod float64
	var watching time.Duration
	for i := 0; i < b.N; i++ {
		var base uint64
		if i == 0 {
			base = heapInUse()
		}
		ctx, cancel := context.WithCancel(context.Background())
		rt := &replayTransport{list: list, stream: stream, release: make(chan struct{})}
		c, err := apiclient.New(&kubeconfig.Config{Server: "http://bench.invalid", Source: "bench"}, apiclient.Options{Transport: rt, QPS: -1})
		if err != nil {
			b.Fatal(err)
		}
		rc := c.Resource(apiclient.Pods).Namespace("bench")
		inf := informer.New(informer.Options{
			Name: "pods",
			Source: func(sink fifo.Sink[*apiclient.Object]) informer.Runner {
				return listwatch.New(rc, sink, listwatch.Options{Name: "pods", Logger: quietLog})
			},
		})
		var updates atomic.Int64
		inf.AddHandler("bench", informer.HandlerFuncs{UpdateFunc: func(_, _ *apiclient.Object) {
			if updates.Add(1) == n {
				cancel()
			}
		}}, 0)
		done := make(chan error, 1)
		go func() { done <- inf.Run(ctx) }()
		if !inf.WaitForCacheSync(ctx) {
			b.Fatal("cache did not sync")
		}
		if i == 0 {
			b.StopTimer()
			heapPerPod = float64(heapInUse()-base) / n
			b.StartTimer()
		}
		start := time.Now()
		close(rt.release) // now the watch may stream
		if err := <-done; err != nil {
			b.Fatal(err)
		}
		watching += time.Since(start)
		if got := updates.Load(); got != n {
			b.Fatalf("%d updates handled, want %d", got, n)
		}
	}
	b.ReportMetric(heapPerPod, "heap-B/pod")
	b.ReportMetric(float64(n*b.N)/watching.Seconds(), "events/s")
}

// informerBenchData builds the LIST body and the watch stream from
// apiclient/testdata/pod.json, each pod with its own name and resourceVersion.
func informerBenchData(b *testing.B, n int) (list, stream []byte) {
	pod, err := os.ReadFile("../../apiclient/testdata/pod.json")
	if err != nil {
		b.Fatal(err)
	}
	pod = bytes.TrimSpace(pod)
	named := func(i, rv int) []byte {
		p := bytes.Replace(pod, []byte(`"name":"load-000001"`), []byte(fmt.Sprintf(`"name":"load-%06d"`, i)), 1)
		return bytes.Replace(p, []byte(`"resourceVersion":"571"`), []byte(fmt.Sprintf(`"resourceVersion":"%d"`, rv)), 1)
	}
	var lb, sb bytes.Buffer
	fmt.Fprintf(&lb, `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"%d"},"items":[`, n)
	for i := 0; i < n; i++ {
		if i > 0 {
			lb.WriteByte(',')
		}
		lb.Write(named(i, i+1))
		sb.WriteString(`{"type":"MODIFIED","object":`)
		sb.Write(named(i, n+1+i))
		sb.WriteString("}\n")
	}
	lb.WriteString("]}")
	return lb.Bytes(), sb.Bytes()
}

// replayTransport answers the LIST, then one watch that streams once released;
// later watches wait for the request to be cancelled.
type replayTransport struct {
	list, stream []byte
	release      chan struct{}
	watches      atomic.Int32
}

func (t *replayTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	body := io.NopCloser(bytes.NewReader(t.list))
	if req.URL.Query().Get("watch") == "true" {
		if t.watches.Add(1) > 1 {
			<-req.Context().Done()
			return nil, req.Context().Err()
		}
		select {
		case <-t.release:
		case <-req.Context().Done():
			return nil, req.Context().Err()
		}
		body = io.NopCloser(bytes.NewReader(t.stream))
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: body, Request: req}, nil
}

func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
