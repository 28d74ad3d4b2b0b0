package controller_test

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/realtest"
	"github.com/kubewire/kubewire/controller"
)

// The stale-cache chapter on a real kube-apiserver: the replicas controller of
// example_stale_test.go, its pods watch behind a delaying proxy
// (apitest.WatchLag), without and with the staleness guard.

// staleParents is how many parents each run asks one child for.
const staleParents = 20

// lagRun is one run: the controller on the real server, its pods watch
// through lag, its pod creates and deletes counted.
type lagRun struct {
	ns               string
	client           *apiclient.Client
	ctrl             *controller.Controller
	lag              *apitest.WatchLag
	creates, deletes atomic.Int32
	parentsCreatedAt time.Time
}

func newLagRun(t *testing.T, guard bool) *lagRun {
	t.Helper()
	cfg, _ := realtest.Config(t)
	rt, err := cfg.Transport()
	must(t, err)
	r := &lagRun{lag: apitest.NewWatchLag(rt, apiclient.Pods)}
	r.client, err = apiclient.New(cfg, apiclient.Options{Transport: countPodWrites{r.lag, &r.creates, &r.deletes}})
	must(t, err)
	r.ns = realtest.Namespace(t, r.client, "kubewire-stale")
	m, err := controller.NewManager(r.client, controller.ManagerOptions{Namespace: r.ns, Log: quiet})
	must(t, err)
	r.ctrl, err = newReplicas(m, controller.Options{DisableStaleGuard: !guard, Workers: 2})
	must(t, err)
	runManager(t, m)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if !m.Informer(apiclient.Pods).WaitForCacheSync(ctx) || !m.Informer(apiclient.ConfigMaps, controller.WithLabels(parentLabel)).WaitForCacheSync(ctx) {
		t.Fatal("the caches never synced")
	}
	return r
}

// createParents makes staleParents parents, each wanting one child.
func (r *lagRun) createParents(t *testing.T) {
	t.Helper()
	r.parentsCreatedAt = time.Now()
	cms := r.client.Resource(apiclient.ConfigMaps).Namespace(r.ns)
	for i := range staleParents {
		body := fmt.Sprintf(`{"metadata":{"name":"p%02d","labels":{%q:""}},"data":{"replicas":"1"}}`, i, parentLabel)
		_, err := cms.Create(context.Background(), []byte(body), apiclient.WriteOptions{})
		must(t, err)
	}
}

func (r *lagRun) pods(t *testing.T) int {
	t.Helper()
	list, err := r.client.Resource(apiclient.Pods).Namespace(r.ns).List(context.Background(), apiclient.ListOptions{})
	must(t, err)
	return len(list.Items)
}

// Held: the pods watch sends nothing until released, so every parent's second
// turn — brought by the controller's own write on the parent — reads a cache
// without the child it created. Without the guard each parent gets two
// children; with it, one, and the second turns are counted as stale skips.
func TestIntegration_stale_children_behind_a_held_watch(t *testing.T) {
	for _, guard := range []bool{false, true} {
		t.Run(fmt.Sprintf("guard=%v", guard), func(t *testing.T) {
			r := newLagRun(t, guard)
			release := r.lag.Hold()
			defer release()
			r.createParents(t)
			if !guard {
				waitUntil(t, "two turns of every parent", func() bool { return r.ctrl.Stats().Reconciles >= 2*staleParents })
				if n := r.pods(t); n != 2*staleParents {
					t.Fatalf("%d children for %d parents; the stale second turns should have made one more each", n, staleParents)
				}
				t.Logf("without the guard: %d parents, %d children created", staleParents, r.creates.Load())
				return
			}
			waitUntil(t, "a child each and a skipped turn", func() bool {
				return r.creates.Load() == staleParents && r.ctrl.Stats().StaleSkips > 0
			})
			release()
			waitUntil(t, "two turns of every parent", func() bool { return r.ctrl.Stats().Reconciles >= 2*staleParents })
			if n := r.pods(t); n != staleParents {
				t.Fatalf("%d children for %d parents with the guard", n, staleParents)
			}
			t.Logf("with the guard: %d parents, %d children created, %d turns skipped", staleParents, r.creates.Load(), r.ctrl.Stats().StaleSkips)
		})
	}
}

// Delayed: every watch byte of pods reaches the controller late, as from a
// busy watch cache — 100 ms, then 1 s. The figures for the note: children
// created and deleted, turns skipped, time until every parent has its one
// child. How many second turns come before their child shows depends on how
// busy the workers are (a second turn queues behind the first turns of the
// parents created after it), so only the guard's correctness is asserted —
// one child each, none made twice — and the rest is logged.
func TestIntegration_stale_children_behind_a_delayed_watch(t *testing.T) {
	for _, lag := range []time.Duration{100 * time.Millisecond, time.Second} {
		for _, guard := range []bool{false, true} {
			t.Run(fmt.Sprintf("lag=%s/guard=%v", lag, guard), func(t *testing.T) {
				r := newLagRun(t, guard)
				r.lag.Delay(lag)
				r.createParents(t)
				waitUntil(t, "one child each, the extra ones deleted", func() bool {
					return r.ctrl.Stats().Reconciles >= 2*staleParents && int(r.creates.Load()-r.deletes.Load()) == staleParents && r.pods(t) == staleParents
				})
				settled := time.Since(r.parentsCreatedAt)
				s := r.ctrl.Stats()
				t.Logf("guard=%v, pods watch %s late, %d parents: %d children created, %d deleted, %d turns skipped, %d reconciles; settled %s after the first parent was created",
					guard, lag, staleParents, r.creates.Load(), r.deletes.Load(), s.StaleSkips, s.Reconciles, settled.Round(time.Millisecond))
				if guard && (r.creates.Load() != staleParents || r.deletes.Load() != 0) {
					t.Fatalf("with the guard: %d created, %d deleted; want %d and 0", r.creates.Load(), r.deletes.Load(), staleParents)
				}
			})
		}
	}
}

// countPodWrites counts the pod creates and deletes that got a 2xx answer.
type countPodWrites struct {
	next             http.RoundTripper
	creates, deletes *atomic.Int32
}

func (c countPodWrites) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(req)
	if err != nil || resp.StatusCode/100 != 2 || !isPods(req) {
		return resp, err
	}
	switch req.Method {
	case http.MethodPost:
		c.creates.Add(1)
	case http.MethodDelete:
		c.deletes.Add(1)
	}
	return resp, err
}

// isPods reports whether req is about pods: …/pods or …/pods/NAME.
func isPods(req *http.Request) bool {
	p := req.URL.Path
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[i+1:] == "pods" || i >= 5 && p[i-5:i] == "/pods"
		}
	}
	return false
}
