package controller_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/trace"
)

// staleRun is the replicas controller (example_stale_test.go) on an API server
// in memory whose pods watch lags from the start, with a trace of its stale
// skips and a count of the DELETEs it sent.
type staleRun struct {
	srv     *apitest.Server
	client  *apiclient.Client
	m       *controller.Manager
	ctrl    *controller.Controller
	release func() // the pods watch catches up
	deletes atomic.Int32

	mu    sync.Mutex
	stale []trace.Event
	log   bytes.Buffer
}

// newStaleRun seeds the server with seed (each a ConfigMap parent or a pod),
// holds the pods watch, and runs the controller until the test ends. With
// statusDeletes, the server answers a DELETE with a Status naming the object,
// as kube-apiserver does for most resources, instead of the object.
func newStaleRun(t *testing.T, opts controller.Options, statusDeletes bool, mopts controller.ManagerOptions, seed func(*apitest.Server)) *staleRun {
	t.Helper()
	r := &staleRun{srv: apitest.NewServer(nil)}
	r.srv.CreateNamespaces("demo")
	t.Cleanup(r.srv.Close)
	if seed != nil {
		seed(r.srv)
	}
	r.release = r.srv.HoldWatch(apiclient.Pods)
	t.Cleanup(r.release)
	rt := &deleteAnswers{next: r.srv.Transport(), status: statusDeletes, count: &r.deletes}
	var err error
	r.client, err = r.srv.Client(apiclient.Options{Transport: rt, Clock: mopts.Clock})
	must(t, err)
	mopts.Namespace = "demo"
	mopts.Log = slog.New(slog.NewTextHandler(lockedWriter{&r.mu, &r.log}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	mopts.Trace = func(e trace.Event) {
		if e.Outcome == "stale" {
			r.mu.Lock()
			r.stale = append(r.stale, e)
			r.mu.Unlock()
		}
	}
	r.m, err = controller.NewManager(r.client, mopts)
	must(t, err)
	r.ctrl, err = newReplicas(r.m, opts)
	must(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.m.Run(ctx) }() // owned by the test: stopped at cleanup
	t.Cleanup(func() { cancel(); <-done })
	return r
}

// pods is how many pods the server holds.
func (r *staleRun) pods(t *testing.T) int {
	t.Helper()
	list, err := r.client.Resource(apiclient.Pods).Namespace("demo").List(context.Background(), apiclient.ListOptions{})
	must(t, err)
	return len(list.Items)
}

// firstStale is the first stale skip's trace event, once there is one.
func (r *staleRun) firstStale(t *testing.T) trace.Event {
	t.Helper()
	waitUntil(t, "a stale skip traced", func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return len(r.stale) > 0
	})
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stale[0]
}

// seedParent seeds a parent web that wants replicas children.
func seedParent(replicas int) func(*apitest.Server) {
	return func(srv *apitest.Server) { addParent(srv, replicas) }
}

func addParent(srv *apitest.Server, replicas int) *apiclient.Object {
	o, err := srv.Add(apiclient.ConfigMaps, fmt.Sprintf(`{"metadata":{"name":"web","namespace":"demo","labels":{%q:""}},"data":{"replicas":"%d"}}`, parentLabel, replicas))
	if err != nil {
		panic(err)
	}
	return o
}

// The bug and the cure, asserted: without the guard the second turn, brought
// by the controller's own write on the parent, counts no child in the lagging
// cache and makes one too many; with it the turn waits, is counted on
// /metrics, and makes none.
func TestStaleGuard_a_lagging_watch_makes_one_child_too_many_only_without_it(t *testing.T) {
	t.Run("without", func(t *testing.T) {
		r := newStaleRun(t, controller.Options{DisableStaleGuard: true}, false, controller.ManagerOptions{}, seedParent(1))
		waitUntil(t, "two turns", func() bool { return r.ctrl.Stats().Reconciles >= 2 })
		if n := r.pods(t); n != 2 {
			t.Fatalf("%d children; the stale second turn should have made a second one", n)
		}
	})
	t.Run("with", func(t *testing.T) {
		r := newStaleRun(t, controller.Options{}, false, controller.ManagerOptions{}, seedParent(1))
		e := r.firstStale(t)
		// The cache stands at the list's version, 2, or nowhere yet: an empty
		// list syncs before its version is popped.
		if e.Informer != "pods" || e.Awaited != "rv 3" || (e.ResourceVersion != "2" && e.ResourceVersion != "") || e.Key != "demo/web" {
			t.Errorf("stale skip %+v, want the pods cache at 2 awaiting rv 3", e)
		}
		page := scrape(t, r.m.Registry())
		if !strings.Contains(page, `kubewire_reconcile_total{controller="replicas",result="stale_skip"} `) ||
			strings.Contains(page, `kubewire_reconcile_total{controller="replicas",result="stale_skip"} 0`) {
			t.Errorf("/metrics counts no stale skip:\n%s", grep(page, "kubewire_reconcile_total"))
		}
		r.release()
		waitUntil(t, "the skipped turn", func() bool { return r.ctrl.Stats().Reconciles >= 2 })
		if n := r.pods(t); n != 1 {
			t.Fatalf("%d children with the guard, want 1", n)
		}
	})
}

// A delete is guarded too: the second turn must not see the deleted child in
// the cache and delete it again. The server answers a delete with the object
// (pods, on kube-apiserver: the version of its deletion is awaited) or with a
// Status (most resources: the object is awaited gone, by uid).
func TestStaleGuard_a_delete_waits_for_the_object_to_leave_the_cache(t *testing.T) {
	for _, tc := range []struct {
		name          string
		statusDeletes bool
		awaited       string
	}{
		{"answered with the object", false, "rv 5"}, // a Pod's delete is two writes: marked (4), then gone (5)
		{"answered with a Status", true, "demo/web-1 gone"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, guard := range []bool{false, true} {
				r := newStaleRun(t, controller.Options{DisableStaleGuard: !guard}, tc.statusDeletes, controller.ManagerOptions{}, func(srv *apitest.Server) {
					web := addParent(srv, 0) // wants none, and has one
					_, err := srv.Add(apiclient.Pods, fmt.Sprintf(`{"metadata":{"name":"web-1","namespace":"demo","ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"web","uid":%q,"controller":true}]}}`, web.Metadata.UID))
					must(t, err)
				})
				if !guard {
					waitUntil(t, "two turns", func() bool { return r.ctrl.Stats().Reconciles >= 2 })
					if n := r.deletes.Load(); n != 2 {
						t.Fatalf("without the guard: %d DELETEs, want 2 (the second turn deletes again what it just deleted)", n)
					}
					continue
				}
				if e := r.firstStale(t); e.Awaited != tc.awaited {
					t.Errorf("the stale skip awaits %q, want %q", e.Awaited, tc.awaited)
				}
				r.release()
				waitUntil(t, "the skipped turn", func() bool { return r.ctrl.Stats().Reconciles >= 2 })
				if n := r.deletes.Load(); n != 1 {
					t.Fatalf("with the guard: %d DELETEs, want 1", n)
				}
			}
		})
	}
}

// What a reconcile wrote was for the object it reconciled: once that object is
// gone from the cache, or is another object of the same name (a new uid), the
// record is dropped and the turn runs, lagging cache or not.
func TestStaleGuard_a_deleted_or_recreated_object_is_not_held_back_by_its_predecessors_writes(t *testing.T) {
	r := newStaleRun(t, controller.Options{}, false, controller.ManagerOptions{}, seedParent(1))
	r.firstStale(t) // the second turn of the first web waits for its child
	cms := r.client.Resource(apiclient.ConfigMaps).Namespace("demo")
	ctx := context.Background()
	must(t, cms.Delete(ctx, "web", apiclient.DeleteOptions{}))
	waitUntil(t, "a turn of the deleted web, however the pods cache lags", func() bool { return r.ctrl.Stats().Reconciles >= 2 })
	_, err := cms.Create(ctx, []byte(fmt.Sprintf(`{"metadata":{"name":"web","labels":{%q:""}},"data":{"replicas":"1"}}`, parentLabel)), apiclient.WriteOptions{})
	must(t, err)
	// The new web has no child (the old one's is not its), and its first turn
	// makes one while the pods cache still lags.
	waitUntil(t, "a child of the new web", func() bool { return r.pods(t) == 2 })
}

// A Request held back StaleWaitLimit after its write's answer is reconciled on
// the cache as it is, with a WARN that says which cache never showed which
// write.
func TestStaleGuard_gives_up_after_StaleWaitLimit(t *testing.T) {
	clock := clock.NewFake()
	r := newStaleRun(t, controller.Options{}, false, controller.ManagerOptions{Clock: clock}, seedParent(1))
	r.firstStale(t)
	for r.ctrl.Stats().Reconciles < 2 {
		skips := r.ctrl.Stats().StaleSkips
		waitUntil(t, "a retry armed", func() bool { return clock.Timers() > 0 || r.ctrl.Stats().Reconciles >= 2 })
		clock.Step(controller.StaleWaitLimit / 60)
		waitUntil(t, "the retry", func() bool { return r.ctrl.Stats().StaleSkips > skips || r.ctrl.Stats().Reconciles >= 2 })
	}
	if skips := r.ctrl.Stats().StaleSkips; skips < 60 {
		t.Errorf("gave up after %d skips, before a minute had passed", skips)
	}
	r.mu.Lock()
	log := r.log.String()
	r.mu.Unlock()
	if !strings.Contains(log, "a cache never showed this process's own write") || !strings.Contains(log, "cache=pods") || !strings.Contains(log, `wrote="rv 3"`) {
		t.Fatalf("no WARN naming the cache and the write:\n%s", log)
	}
}

// deleteAnswers counts the DELETEs that reach the server and, with status,
// answers a successful one with a Status naming the object (details.uid), as
// kube-apiserver does for configmaps, deployments and most resources.
type deleteAnswers struct {
	next   http.RoundTripper
	status bool
	count  *atomic.Int32
}

func (d *deleteAnswers) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := d.next.RoundTrip(req)
	if err != nil || req.Method != http.MethodDelete {
		return resp, err
	}
	d.count.Add(1)
	if !d.status || resp.StatusCode != http.StatusOK {
		return resp, nil
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	obj, err := apiclient.DecodeObject(body)
	if err != nil {
		return nil, err
	}
	status := fmt.Sprintf(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","details":{"name":%q,"kind":"pods","uid":%q}}`, obj.Metadata.Name, obj.Metadata.UID)
	resp.Body = io.NopCloser(strings.NewReader(status))
	resp.ContentLength = int64(len(status))
	return resp, nil
}

// lockedWriter serializes writes to w under mu.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// grep is the lines of page that contain s.
func grep(page, s string) string {
	var out []string
	for _, line := range strings.Split(page, "\n") {
		if strings.Contains(line, s) {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}
