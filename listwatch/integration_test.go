package listwatch_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/kubeconfig"
	"github.com/kubewire/kubewire/listwatch"
	"github.com/kubewire/kubewire/listwatch/recording"
)

// Integration tests run against the kube-apiserver named by KUBEWIRE_TEST_KUBECONFIG
// (.ci/run starts one with .ci/cluster/up.sh) and skip without it.

func integrationConfig(t *testing.T) *kubeconfig.Config {
	t.Helper()
	path := os.Getenv("KUBEWIRE_TEST_KUBECONFIG")
	if path == "" {
		t.Skip("KUBEWIRE_TEST_KUBECONFIG is not set: no real API server to test against (.ci/run starts one)")
	}
	cfg, err := kubeconfig.Load(kubeconfig.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func integrationClient(t *testing.T, cfg *kubeconfig.Config) *apiclient.Client {
	t.Helper()
	c, err := apiclient.New(cfg, apiclient.Options{QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// ensureNamespace creates ns unless it exists. Without a namespace controller a
// deleted namespace never goes away, so tests that want a fresh one add a random
// suffix, and the 10,000-pod test keeps its namespace from one run to the next.
func ensureNamespace(t *testing.T, c *apiclient.Client, ns string) {
	t.Helper()
	_, err := c.Resource(apiclient.Namespaces).Create(context.Background(),
		[]byte(fmt.Sprintf(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":%q}}`, ns)), apiclient.WriteOptions{})
	if err != nil && !apiclient.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

func freshNamespace(t *testing.T, c *apiclient.Client, prefix string) string {
	t.Helper()
	b := make([]byte, 3)
	rand.Read(b)
	ns := prefix + "-" + hex.EncodeToString(b)
	ensureNamespace(t, c, ns)
	return ns
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
	list, err := rc.ListAll(context.Background(), apiclient.ListOptions{Limit: 500})
	if err != nil {
		t.Fatal(err)
	}
	sink := newModelSink(nil)
	sink.Replace(list.Items, list.ResourceVersion)
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
	cfg := integrationConfig(t)
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
		{"streaming list", listwatch.Options{WatchList: true}},
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

// TestIntegration_reflector_comes_back_after_the_apiserver_restarts kills a
// kube-apiserver under a running reflector, changes pods while it is down and after
// it is back, and checks that the reflector backs off, comes back and converges.
//
// The apiserver it kills is its own: a second kube-apiserver on the test cluster's
// etcd, started from the cluster's apiserver.sh on a free port (an HA pair, as far
// as etcd knows). Killing the cluster's own server would break the integration tests
// of other packages, which go test runs at the same time.
func TestIntegration_reflector_comes_back_after_the_apiserver_restarts(t *testing.T) {
	cfg := integrationConfig(t)
	side := integrationClient(t, cfg)
	ns := freshNamespace(t, side, "kubewire-listwatch-restart")
	sideRC := side.Resource(apiclient.Pods).Namespace(ns)
	for _, name := range []string{"web-1", "web-2", "web-3"} {
		createPod(t, sideRC, name)
	}

	api := startPrivateAPIServer(t)
	mine := *cfg
	mine.Server = api.url
	c := integrationClient(t, &mine)
	sink := newModelSink(nil)
	steps := make(chan listwatch.Step, 1000)
	r := listwatch.New(c.Resource(apiclient.Pods).Namespace(ns), sink, listwatch.Options{
		Logger: discard, OnStep: func(s listwatch.Step) { steps <- s }})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- r.Run(ctx) }()
	defer func() { cancel(); <-done }()
	deadline := time.After(3 * time.Minute)
	waitFor := func(what string, ok func(listwatch.Step) bool) {
		t.Helper()
		for {
			select {
			case s := <-steps:
				t.Log(s)
				if ok(s) {
					return
				}
			case <-deadline:
				t.Fatalf("gave up waiting for %s: %+v", what, r.Health())
			}
		}
	}
	waitFor("the first watch", func(s listwatch.Step) bool { return s.Op == listwatch.OpWatch })

	api.stop(t)
	waitFor("a backoff", func(s listwatch.Step) bool { return s.Op == listwatch.OpBackoff })
	if h := r.Health(); h.LastError == nil {
		t.Fatalf("no error in Health after the server went away: %+v", h)
	}
	deleteErr := sideRC.Delete(context.Background(), "web-2", apiclient.DeleteOptions{GracePeriodSeconds: new(int64)})
	if deleteErr != nil {
		t.Fatal(deleteErr)
	}
	createPod(t, sideRC, "web-4")
	api.start(t)
	createPod(t, sideRC, "web-5")
	want := strings.Join(serverState(t, sideRC), "\n")
	waitFor("the sink to match the server", func(listwatch.Step) bool { return strings.Join(sink.state(), "\n") == want })
	h := r.Health()
	t.Logf("converged: relists %d, watch restarts %d, last error %v", h.Relists, h.WatchRestarts, h.LastError)
}

func createPod(t *testing.T, rc apiclient.ResourceClient, name string) {
	t.Helper()
	body := fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":%q},"spec":{"containers":[{"name":"c","image":"nginx:1.27"}]}}`, name)
	if _, err := rc.Create(context.Background(), []byte(body), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
}

// privateAPIServer is a kube-apiserver of the test's own, on the cluster's etcd.
type privateAPIServer struct {
	script string // its start script
	url    string
	log    string
	cmd    *exec.Cmd
	waited chan struct{}
	cfg    *kubeconfig.Config
}

// startPrivateAPIServer starts one from the cluster's apiserver.sh (in
// KUBEWIRE_TEST_CLUSTER_DIR, else next to the kubeconfig) with another port, and
// stops it when the test ends, whatever happened.
func startPrivateAPIServer(t *testing.T) *privateAPIServer {
	t.Helper()
	dir := os.Getenv("KUBEWIRE_TEST_CLUSTER_DIR")
	if dir == "" {
		dir = filepath.Dir(os.Getenv("KUBEWIRE_TEST_KUBECONFIG"))
	}
	orig, err := os.ReadFile(filepath.Join(dir, "apiserver.sh"))
	if err != nil {
		t.Skipf("no apiserver.sh in %s (set KUBEWIRE_TEST_CLUSTER_DIR): %v", dir, err)
	}
	port := freePort(t)
	re := regexp.MustCompile(`--secure-port "?\d+"?`)
	if !re.Match(orig) {
		t.Skipf("%s/apiserver.sh names no --secure-port", dir)
	}
	tmp := t.TempDir()
	a := &privateAPIServer{script: filepath.Join(tmp, "apiserver.sh"), url: fmt.Sprintf("https://127.0.0.1:%d", port), log: filepath.Join(tmp, "apiserver.log")}
	if err := os.WriteFile(a.script, re.ReplaceAll(orig, []byte(fmt.Sprintf("--secure-port %d", port))), 0o755); err != nil {
		t.Fatal(err)
	}
	a.cfg = integrationConfig(t)
	a.cfg.Server = a.url
	t.Cleanup(func() {
		if a.cmd != nil {
			a.stop(t)
		}
	})
	a.start(t)
	return a
}

func (a *privateAPIServer) start(t *testing.T) {
	t.Helper()
	logf, err := os.OpenFile(a.log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	a.cmd = exec.Command(a.script)
	a.cmd.Stdout, a.cmd.Stderr = logf, logf
	if err := a.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	a.waited = make(chan struct{})
	go func() { a.cmd.Wait(); logf.Close(); close(a.waited) }()
	rt, err := a.cfg.Transport()
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: rt, Timeout: 2 * time.Second}
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(90 * time.Second)
	for {
		if resp, err := hc.Get(a.url + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case <-a.waited:
			log, _ := os.ReadFile(a.log)
			t.Fatalf("the private kube-apiserver exited:\n%s", tail(string(log), 2000))
		case <-deadline:
			t.Fatal("the private kube-apiserver is not ready after 90 s")
		case <-tick.C:
		}
	}
}

// stop sends SIGTERM and waits for the process to exit (SIGKILL after 30 s).
func (a *privateAPIServer) stop(t *testing.T) {
	t.Helper()
	a.cmd.Process.Signal(os.Interrupt)
	select {
	case <-a.waited:
	case <-time.After(30 * time.Second):
		a.cmd.Process.Kill()
		<-a.waited
	}
	a.cmd = nil
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// TestIntegration_record_then_replay records from the real server with Record and
// replays the recording to a reflector with default options: the requests match
// and the sink ends with what the server had.
func TestIntegration_record_then_replay(t *testing.T) {
	cfg := integrationConfig(t)
	side := integrationClient(t, cfg)
	ns := freshNamespace(t, side, "kubewire-listwatch-record")
	rc := side.Resource(apiclient.Pods).Namespace(ns)
	createPod(t, rc, "web-1")
	path := filepath.Join(t.TempDir(), "pods.rec")
	f, err := recording.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	recorded := make(chan error)
	go func() {
		recorded <- listwatch.Record(context.Background(), cfg, apiclient.Pods, f, listwatch.RecordOptions{
			Namespace: ns, Events: 2, Duration: time.Minute})
	}()
	// The watch sees what is created once the LIST is done; creating until the
	// recorder has two events is simpler than knowing when that is.
	for i := 2; ; i++ {
		createPod(t, rc, fmt.Sprintf("web-%d", i))
		select {
		case err := <-recorded:
			if err != nil {
				t.Fatal(err)
			}
			f.Close()
			rec, err := recording.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			lines := newScenario(t, rec, listwatch.Options{}).run()
			t.Log("\n" + strings.Join(lines, "\n"))
			return
		case <-time.After(500 * time.Millisecond):
		}
	}
}
