package listwatch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/kubeconfig"
	"github.com/kubewire/kubewire/apiclient/realtest"
	"github.com/kubewire/kubewire/apiclient/recording"
	"github.com/kubewire/kubewire/listwatch"
)

// Integration tests run against the kube-apiserver named by KUBEWIRE_TEST_KUBECONFIG
// (.ci/run starts one with .ci/cluster/up.sh) and skip without it (package realtest).

// integrationClient is a client for cfg without rate limits; the tests keep cfg,
// to record with it or to point it at a private apiserver.
func integrationClient(t *testing.T, cfg *kubeconfig.Config) *apiclient.Client {
	t.Helper()
	c, err := apiclient.New(cfg, apiclient.Options{QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// ensureNamespace creates ns unless it exists: the 10,000-pod test keeps its
// namespace, pods and all, from one run to the next. Tests that want a fresh one
// take realtest.Namespace (a deleted namespace never goes away on a server without
// a namespace controller, hence its random names).
func ensureNamespace(t *testing.T, c *apiclient.Client, ns string) {
	t.Helper()
	_, err := c.Resource(apiclient.Namespaces).Create(context.Background(),
		[]byte(fmt.Sprintf(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":%q}}`, ns)), apiclient.WriteOptions{})
	if err != nil && !apiclient.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

// podTemplate is the recorded clientgo pod (5.2 KB as the server stores it) without
// what the server fills in, ready to create under another name.
func podTemplate(t *testing.T) map[string]any {
	t.Helper()
	rec, err := recording.Open(filepath.Join("..", "testdata", "recordings", "clientgo-pods.rec"))
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Items []map[string]any `json:"items"`
	}
	if err := json.Unmarshal(rec.Exchanges[0].Lines[0], &list); err != nil {
		t.Fatal(err)
	}
	pod := list.Items[0]
	meta := pod["metadata"].(map[string]any)
	for _, k := range []string{"uid", "resourceVersion", "creationTimestamp", "managedFields", "namespace"} {
		delete(meta, k)
	}
	delete(pod, "status")
	pod["apiVersion"], pod["kind"] = "v1", "Pod"
	return pod
}

// createPods creates pods named pod-000000… up to n in ns, with some in parallel,
// skipping the names that exist.
func createPods(t *testing.T, rc apiclient.ResourceClient, n int) {
	t.Helper()
	ctx := context.Background()
	have := map[string]bool{}
	if _, err := rc.ListEach(ctx, apiclient.ListOptions{ResourceVersion: "0"}, apiclient.DecodeOptions{}, func(o *apiclient.Object) error {
		have[o.Metadata.Name] = true
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	template := podTemplate(t)
	names := make(chan string)
	errs := make(chan error, 8)
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for name := range names {
				template := template
				meta := map[string]any{}
				for k, v := range template["metadata"].(map[string]any) {
					meta[k] = v
				}
				meta["name"] = name
				pod := map[string]any{}
				for k, v := range template {
					pod[k] = v
				}
				pod["metadata"] = meta
				body, _ := json.Marshal(pod)
				if _, err := rc.Create(ctx, body, apiclient.WriteOptions{}); err != nil && !apiclient.IsAlreadyExists(err) {
					select {
					case errs <- err:
					default:
					}
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		if name := fmt.Sprintf("pod-%06d", i); !have[name] {
			names <- name
		}
	}
	close(names)
	wg.Wait()
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
}

// serverState lists ns consistently (from etcd) as sorted "key rv" lines.
func serverState(t *testing.T, rc apiclient.ResourceClient) []string {
	t.Helper()
	items, rv, err := listwatch.ListAll(context.Background(), rc, apiclient.ListOptions{Limit: 500})
	if err != nil {
		t.Fatal(err)
	}
	sink := newModelSink(nil)
	sink.Replace(items, rv)
	return sink.state()
}

// syncOnce runs a reflector until its first list reached the sink and returns the
// sink and how long it took.
func syncOnce(t *testing.T, rc apiclient.ResourceClient, opts listwatch.Options) (*modelSink, time.Duration) {
	t.Helper()
	sink := newModelSink(nil)
	listed := make(chan struct{})
	var once sync.Once
	opts.Logger = discard
	opts.OnStep = func(s listwatch.Step) {
		if s.Op == listwatch.OpListed {
			once.Do(func() { close(listed) })
		}
	}
	r := listwatch.New(rc, sink, opts)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	start := time.Now()
	go func() { done <- r.Run(ctx) }()
	select {
	case <-listed:
	case <-time.After(2 * time.Minute):
		t.Fatalf("not synced after 2 minutes: %+v", r.Health())
	}
	took := time.Since(start)
	cancel()
	<-done
	return sink, took
}

// TestIntegration_reflector_over_10k_pods: with LIST and with a streaming list, the
// sink ends equal to the server's list, names and resourceVersions.
func TestIntegration_reflector_over_10k_pods(t *testing.T) {
	cfg, _ := realtest.Config(t)
	c := integrationClient(t, cfg)
	const ns = "kubewire-listwatch-10k"
	ensureNamespace(t, c, ns)
	rc := c.Resource(apiclient.Pods).Namespace(ns)
	start := time.Now()
	createPods(t, rc, 10000)
	t.Logf("10,000 pods in %s (created what was missing in %s)", ns, time.Since(start).Round(time.Millisecond))
	want := serverState(t, rc)
	if len(want) != 10000 {
		t.Fatalf("the server lists %d pods in %s, want 10000", len(want), ns)
	}
	for _, tt := range []struct {
		name string
		opts listwatch.Options
	}{
		{"LIST", listwatch.Options{}},
		{"streaming list", listwatch.Options{List: listwatch.ListStreaming}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sink, took := syncOnce(t, rc, tt.opts)
			got := sink.state()
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("the sink holds %d objects that differ from the server's %d", len(got), len(want))
			}
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			t.Logf("%s: synced %d objects in %s; heap after GC %.1f MiB", tt.name, len(got), took.Round(time.Millisecond), float64(ms.HeapAlloc)/(1<<20))
			runtime.KeepAlive(sink)
			if path := os.Getenv("KUBEWIRE_TEST_DUMP"); path != "" { // to diff with clientgo sync -dump
				os.WriteFile(path, []byte(dump(got)), 0o644)
			}
		})
	}
}

// dump writes "namespace/name resourceVersion" lines, as clientgo sync -dump does.
func dump(state []string) string {
	var b strings.Builder
	for _, s := range state {
		b.WriteString(strings.Replace(s, " rv=", " ", 1) + "\n")
	}
	return b.String()
}

// TestIntegration_record_then_replay records from the real server with Record and
// replays the recording to a reflector with default options, given the
// client's ServerVersion as an informer's is (newScenario): the requests match
// and the sink ends with what the server had. Two pods are made once the first
// list is complete (OnSynced), so they are the two events on every release —
// after a LIST from 1.33, after a streaming list's end bookmark before.
func TestIntegration_record_then_replay(t *testing.T) {
	cfg, _ := realtest.Config(t)
	side := integrationClient(t, cfg)
	ns := realtest.Namespace(t, side, "kubewire-listwatch-record")
	rc := side.Resource(apiclient.Pods).Namespace(ns)
	createPod(t, rc, "web-1")
	path := filepath.Join(t.TempDir(), "pods.rec")
	f, err := recording.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	synced := make(chan struct{})
	recorded := make(chan error, 1)
	go func() {
		_, err := listwatch.Record(context.Background(), cfg, apiclient.Pods, f, listwatch.RecordOptions{
			Namespace: ns, Events: 2, Duration: time.Minute, OnSynced: func(listwatch.Recorded) { close(synced) }})
		recorded <- err
	}()
	select {
	case <-synced:
	case err := <-recorded:
		t.Fatalf("Record ended before its first list was complete: %v", err)
	}
	createPod(t, rc, "web-2")
	createPod(t, rc, "web-3")
	if err := <-recorded; err != nil {
		t.Fatal(err)
	}
	f.Close()
	rec, err := recording.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := newScenario(t, rec, listwatch.Options{}).run()
	t.Log("\n" + strings.Join(lines, "\n"))
	if got, want := strings.Join(lines, "\n"), "ADD    "+ns+"/web-3 "; !strings.Contains(got, want) {
		t.Fatalf("the replay never added web-3:\n%s", got)
	}
}

// TestIntegration_ListAll_reads_every_page: five pods in pages of two, from etcd
// (resourceVersion ""), come back as one list at one resourceVersion.
func TestIntegration_ListAll_reads_every_page(t *testing.T) {
	cfg, _ := realtest.Config(t)
	c := integrationClient(t, cfg)
	ns := realtest.Namespace(t, c, "kubewire-listwatch-pages")
	rc := c.Resource(apiclient.Pods).Namespace(ns)
	for i := 1; i <= 5; i++ {
		createPod(t, rc, fmt.Sprintf("web-%d", i))
	}
	pages := 0
	p := listwatch.Pager{OnPage: func(int, apiclient.ListOptions) { pages++ }}
	var names []string
	rv, err := p.List(context.Background(), rc, apiclient.ListOptions{Limit: 2}, func(o *apiclient.Object) error {
		names = append(names, o.Metadata.Name)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(names, " "), "web-1 web-2 web-3 web-4 web-5"; got != want || pages != 3 || rv == "" {
		t.Fatalf("listed %q in %d pages at rv %q, want %q in 3 pages", got, pages, rv, want)
	}
}
