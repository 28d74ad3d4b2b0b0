// Command recordscenarios makes the reflector's scenario recordings
// (testdata/scenarios/*.rec at the repository root) from a real kube-apiserver:
//
//	go run ./listwatch/internal/recordscenarios -kubeconfig DIR/kubeconfig [-only NAME]
//
// DIR is a cluster started by .ci/cluster/up.sh; the relist-410 scenario restarts its
// kube-apiserver (DIR/apiserver.sh), and continue-410 waits up to ten minutes for etcd
// to compact. Each scenario makes exactly the requests a Reflector with the options
// of its test would make, through a recording.Transport, while a second client (not
// recorded) changes pods to give the watches something to say. Scenarios whose
// faults a healthy server cannot produce (a malformed line, a stall, a cut, 500s,
// 429s) are built from a real recording with the fault written in; their comments
// say so. Nothing here runs in CI: the recordings are committed.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/kubeconfig"
	"github.com/kubewire/kubewire/apiclient/recording"
	"github.com/kubewire/kubewire/listwatch"
)

var (
	kubeconfigPath = flag.String("kubeconfig", os.Getenv("KUBEWIRE_TEST_KUBECONFIG"), "kubeconfig of a cluster made by .ci/cluster/up.sh")
	out            = flag.String("out", "testdata/scenarios", "where the .rec files go")
	only           = flag.String("only", "", "record just this scenario")
	podsNS         = flag.String("clientgo-pods", "", "instead: record testdata/recordings/clientgo-pods.rec from this namespace, loaded by clientgo load")
)

func main() {
	flag.Parse()
	cfg, err := kubeconfig.Load(kubeconfig.Options{Path: *kubeconfigPath})
	if err != nil {
		log.Fatal(err)
	}
	base, err := cfg.Transport()
	if err != nil {
		log.Fatal(err)
	}
	side, err := apiclient.New(cfg, apiclient.Options{QPS: -1})
	if err != nil {
		log.Fatal(err)
	}
	m := &maker{cfg: cfg, base: base, side: side, dir: filepath.Dir(*kubeconfigPath)}
	m.version = m.serverVersion()
	if *podsNS != "" {
		m.clientgoPods(*podsNS)
		return
	}
	for _, s := range []struct {
		name string
		fn   func(*session)
	}{
		{"list-watch", m.listWatch},
		{"rewatch", m.rewatch},
		{"paged-list", m.pagedList},
		{"bookmarks", m.bookmarks},
		{"streaming-list", m.streamingList},
		{"streaming-refused", m.streamingRefused},
		{"relist-410", m.relist410},
		{"continue-410", m.continue410},
	} {
		if *only != "" && *only != s.name {
			continue
		}
		log.Printf("recording %s", s.name)
		m.record(s.name, s.fn)
	}
	if *only == "" || *only == "faults" {
		m.faults()
	}
}

type maker struct {
	cfg     *kubeconfig.Config
	base    http.RoundTripper
	side    *apiclient.Client
	dir     string
	version string
}

// session is one scenario being recorded: its namespace, the recorded client, and
// the writer.
type session struct {
	m   *maker
	ctx context.Context
	ns  string
	rc  apiclient.ResourceClient // recorded
	sc  apiclient.ResourceClient // side: not recorded
	w   *recording.Writer
	rv  string
	// fixes edit the recording before it is saved (request lines the real server
	// could not be asked as the reflector asks them).
	fixes []func(*recording.Recording)
}

func (m *maker) record(name string, fn func(*session)) {
	var buf bytes.Buffer
	w := recording.NewWriter(&buf,
		fmt.Sprintf("scenario %s, recorded from kube-apiserver %s (.ci/cluster/up.sh) on %s", name, m.version, time.Now().UTC().Format("2006-01-02")),
		"by: go run ./listwatch/internal/recordscenarios -kubeconfig DIR/kubeconfig -only "+name,
		"Response bodies are verbatim. Requests are the ones the scenario's Reflector makes.")
	c, err := apiclient.New(m.cfg, apiclient.Options{QPS: -1, Transport: &recording.Transport{Base: m.base, W: w}})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	ns := m.namespace(name)
	s := &session{m: m, ctx: ctx, ns: ns, rc: c.Resource(apiclient.Pods).Namespace(ns), sc: m.side.Resource(apiclient.Pods).Namespace(ns), w: w}
	fn(s)
	if err := w.Flush(); err != nil {
		log.Fatal(err)
	}
	data := buf.Bytes()
	if len(s.fixes) > 0 {
		rec, err := recording.Parse(bytes.NewReader(data))
		if err != nil {
			log.Fatal(err)
		}
		for _, f := range s.fixes {
			f(rec)
		}
		var fixed bytes.Buffer
		rec.WriteTo(&fixed)
		data = fixed.Bytes()
	}
	m.save(name, data)
}

func (m *maker) save(name string, data []byte) {
	if _, err := recording.Parse(bytes.NewReader(data)); err != nil {
		log.Fatalf("%s: the recording does not parse: %v", name, err)
	}
	f, err := recording.Create(filepath.Join(*out, name+".rec"))
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		log.Fatal(err)
	}
}

// namespace creates a fresh namespace for a scenario. Without a namespace
// controller a deleted namespace never goes away, so each run makes a new name.
func (m *maker) namespace(scenario string) string {
	b := make([]byte, 2)
	rand.Read(b)
	name := "kw-rec-" + scenario + "-" + hex.EncodeToString(b)
	_, err := m.side.Resource(apiclient.Namespaces).Create(context.Background(),
		[]byte(fmt.Sprintf(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":%q}}`, name)), apiclient.WriteOptions{})
	if err != nil {
		log.Fatal(err)
	}
	return name
}

func (m *maker) serverVersion() string {
	var v struct {
		Major, Minor string
	}
	resp, err := m.base.RoundTrip(mustRequest(m.cfg.Server + "/version"))
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	json.NewDecoder(resp.Body).Decode(&v)
	return "v" + v.Major + "." + v.Minor
}

func mustRequest(u string) *http.Request {
	r, err := http.NewRequest("GET", u, nil)
	if err != nil {
		log.Fatal(err)
	}
	return r
}

// pods creates the named pods (with the side client).
func (s *session) pods(names ...string) {
	for _, n := range names {
		body := fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":%q,"labels":{"app":"web"}},"spec":{"containers":[{"name":"nginx","image":"nginx:1.27","ports":[{"containerPort":80}]}]}}`, n)
		if _, err := s.sc.Create(s.ctx, []byte(body), apiclient.WriteOptions{}); err != nil {
			log.Fatal(err)
		}
	}
}

// touch changes a pod's label (a MODIFIED event).
func (s *session) touch(name, value string) {
	patch := fmt.Sprintf(`{"metadata":{"labels":{"touched":%q}}}`, value)
	if _, err := s.sc.Patch(s.ctx, name, apiclient.MergePatch, []byte(patch), apiclient.WriteOptions{}); err != nil {
		log.Fatal(err)
	}
}

func (s *session) remove(name string) {
	if err := s.sc.Delete(s.ctx, name, apiclient.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
		log.Fatal(err)
	}
}

// list makes the reflector's LIST (all pages, through the reflector's Pager) and
// remembers the resourceVersion.
func (s *session) list(opts apiclient.ListOptions) {
	rv, err := listwatch.Pager{}.List(s.ctx, s.rc, opts, func(*apiclient.Object) error { return nil })
	if err != nil {
		log.Fatal(err)
	}
	s.rv = rv
}

// watch makes the reflector's watch from s.rv and reads it to its end while during
// runs (once the watch is open); it returns the error that ended it (nil: EOF).
func (s *session) watch(timeout int64, during func(), extra ...func(*apiclient.ListOptions)) error {
	opts := apiclient.ListOptions{ResourceVersion: s.rv, AllowWatchBookmarks: true, TimeoutSeconds: timeout}
	for _, f := range extra {
		f(&opts)
	}
	w, err := s.rc.Watch(s.ctx, apiclient.WatchOptions{ListOptions: opts})
	if err != nil {
		return err
	}
	defer w.Close()
	if during != nil {
		go during()
	}
	for {
		ev, err := w.Next()
		if apiclient.CodeOf(err) != 0 {
			drain(w) // the server ends the stream after an ERROR event: record that too
			return err
		}
		if err != nil {
			if err.Error() == "EOF" {
				return nil
			}
			return err
		}
		if v := ev.Object.Metadata.ResourceVersion; v != "" {
			s.rv = v
		}
	}
}

// drain reads a watch to its end (at most a few lines).
func drain(w *apiclient.Watcher) {
	for i := 0; i < 10; i++ {
		if _, err := w.Next(); err != nil && apiclient.CodeOf(err) == 0 {
			return
		}
	}
}

func pause() { time.Sleep(400 * time.Millisecond) }

// restartAPIServer stops the cluster's kube-apiserver and starts it again from
// DIR/apiserver.sh, as up.sh's comment says, and waits for /readyz.
func (m *maker) restartAPIServer() {
	pid, err := os.ReadFile(filepath.Join(m.dir, "apiserver.pid"))
	if err != nil {
		log.Fatal(err)
	}
	if err := exec.Command("kill", strings.TrimSpace(string(pid))).Run(); err != nil {
		log.Fatal(err)
	}
	for i := 0; i < 60 && exec.Command("kill", "-0", strings.TrimSpace(string(pid))).Run() == nil; i++ {
		time.Sleep(500 * time.Millisecond)
	}
	logf, _ := os.OpenFile(filepath.Join(m.dir, "apiserver.log"), os.O_APPEND|os.O_WRONLY, 0o644)
	cmd := exec.Command(filepath.Join(m.dir, "apiserver.sh"))
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	os.WriteFile(filepath.Join(m.dir, "apiserver.pid"), []byte(fmt.Sprint(cmd.Process.Pid)), 0o644)
	go cmd.Wait()
	for i := 0; i < 120; i++ {
		resp, err := m.base.RoundTrip(mustRequest(m.cfg.Server + "/readyz"))
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
	log.Fatal("kube-apiserver did not come back")
}

// reflectorList is the reflector's first LIST.
var reflectorList = apiclient.ListOptions{ResourceVersion: "0", Limit: 500}

// retarget changes an exchange's request line, keeping a comment with the original.
func retarget(rec *recording.Recording, i int, target, why string) {
	ex := &rec.Exchanges[i]
	ex.Comments = append(ex.Comments, fmt.Sprintf("recorded as %s %s; %s", ex.Method, ex.Target, why))
	ex.Target = target
}

// withQuery returns target with its query replaced by q.
func withQuery(target string, q url.Values) string {
	path, _, _ := strings.Cut(target, "?")
	return path + "?" + q.Encode()
}
