package listwatch_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/kubeconfig"
	"github.com/kubewire/kubewire/apiclient/recording"
	"github.com/kubewire/kubewire/listwatch"
)

// The benchmarks run the reflector on bytes recorded from a real server
// (testdata/recordings/clientgo-pods.rec: pods made by clientgo load, 5.2 KB each with
// managedFields), multiplied to 10,000 with names and resourceVersions changed, and
// served from memory so that only the client's work is measured: decoding, keying,
// the sink call.
//
//	go test ./listwatch -run '^$' -bench . -benchmem

const benchObjects = 10000

var rvField = regexp.MustCompile(`"resourceVersion":"\d+"`)

// benchData returns a LIST body of n pods and a watch stream of n MODIFIED events,
// each with its own name and resourceVersion.
func benchData(b *testing.B, n int) (list, stream []byte) {
	b.Helper()
	rec, err := recording.Open(filepath.Join("..", "testdata", "recordings", "clientgo-pods.rec"))
	if err != nil {
		b.Fatal(err)
	}
	listLine, event := rec.Exchanges[0].Lines[0], rec.Exchanges[1].Lines[0]
	var doc struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(listLine, &doc); err != nil || len(doc.Items) == 0 {
		b.Fatalf("the recorded LIST: %v", err)
	}
	item := []byte(doc.Items[0])
	name := regexp.MustCompile(`"name":"(load-\d+)"`).FindSubmatch(item)[1]
	evName := regexp.MustCompile(`"name":"(load-\d+)"`).FindSubmatch(event)[1]
	var lb, sb bytes.Buffer
	lb.WriteString(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1000000"},"items":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			lb.WriteByte(',')
		}
		p := bytes.ReplaceAll(item, name, []byte(fmt.Sprintf("pod-%06d", i)))
		lb.Write(rvField.ReplaceAll(p, []byte(fmt.Sprintf(`"resourceVersion":"%d"`, 10+i))))
		e := bytes.ReplaceAll(event, evName, []byte(fmt.Sprintf("pod-%06d", i)))
		sb.Write(rvField.ReplaceAll(e, []byte(fmt.Sprintf(`"resourceVersion":"%d"`, 1000001+i))))
		sb.WriteByte('\n')
	}
	lb.WriteString("]}\n")
	return lb.Bytes(), sb.Bytes()
}

// memTransport answers LISTs with list and the first watch with stream; later
// watches hang until their request is cancelled.
type memTransport struct {
	list, stream []byte
	watches      atomic.Int32
}

func (m *memTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	body := io.NopCloser(bytes.NewReader(m.list))
	if req.URL.Query().Get("watch") == "true" {
		if m.watches.Add(1) > 1 {
			<-req.Context().Done()
			return nil, req.Context().Err()
		}
		body = io.NopCloser(bytes.NewReader(m.stream))
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: body, Request: req}, nil
}

// countSink counts and drops, or keeps (for the heap figure).
type countSink struct {
	n      atomic.Int64
	want   int64
	done   func()
	keep   []*apiclient.Object
	listed chan struct{}
}

func (s *countSink) Add(*apiclient.Object) error    { return nil }
func (s *countSink) Delete(*apiclient.Object) error { return nil }
func (s *countSink) Update(*apiclient.Object) error {
	if s.n.Add(1) == s.want {
		s.done()
	}
	return nil
}
func (s *countSink) Replace(list []*apiclient.Object, _ string) error {
	s.keep = list
	close(s.listed)
	return nil
}

func benchClient(b *testing.B, rt http.RoundTripper) apiclient.ResourceClient {
	b.Helper()
	c, err := apiclient.New(&kubeconfig.Config{Server: "http://bench.invalid", Source: "bench"}, apiclient.Options{Transport: rt, QPS: -1})
	if err != nil {
		b.Fatal(err)
	}
	return c.Resource(apiclient.Pods).Namespace("bench")
}

// BenchmarkReflector_watch_10k_events: one op is a watch stream of 10,000 MODIFIED
// events of 5.2 KB pods, read, decoded (managedFields dropped), applied to a sink.
func BenchmarkReflector_watch_10k_events(b *testing.B) {
	_, stream := benchData(b, benchObjects)
	empty := []byte(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1000000"},"items":[]}`)
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		sink := &countSink{want: benchObjects, done: cancel, listed: make(chan struct{})}
		r := listwatch.New(benchClient(b, &memTransport{list: empty, stream: stream}), sink, listwatch.Options{Logger: discard})
		r.Run(ctx)
		if sink.n.Load() != benchObjects {
			b.Fatalf("%d events applied", sink.n.Load())
		}
	}
	b.StopTimer()
	runtime.ReadMemStats(&ms1)
	events := float64(b.N * benchObjects)
	b.ReportMetric(events/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/events, "allocs/event")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/events, "ns/event")
}

// BenchmarkReflector_list_10k_pods: one op is a LIST of 10,000 pods of 5.2 KB (52 MB),
// decoded item by item and handed to the sink as one Replace. It also reports the
// heap the 10,000 decoded objects hold after GC (managedFields dropped).
func BenchmarkReflector_list_10k_pods(b *testing.B) {
	list, _ := benchData(b, benchObjects)
	b.SetBytes(int64(len(list)))
	b.ReportAllocs()
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	b.ResetTimer()
	var last *countSink
	for i := 0; i < b.N; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		sink := &countSink{listed: make(chan struct{})}
		r := listwatch.New(benchClient(b, &memTransport{list: list}), sink, listwatch.Options{Logger: discard})
		done := make(chan error)
		go func() { done <- r.Run(ctx) }()
		<-sink.listed
		cancel()
		<-done
		if len(sink.keep) != benchObjects {
			b.Fatalf("%d objects listed", len(sink.keep))
		}
		last = sink
	}
	b.StopTimer()
	runtime.ReadMemStats(&ms1)
	pods := float64(b.N * benchObjects)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/pods, "ns/pod")
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/pods, "allocs/pod")
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	last.keep = nil // the only reference to the 10,000 objects
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(before.HeapAlloc-after.HeapAlloc)/(1<<20), "MiB-held-by-10k")
}
