package controller_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/realtest"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/foo"
	"github.com/kubewire/kubewire/controller/podrestart"
)

// The example controllers reconcile through the staleness guard, which is on
// by default: each is brought back while its cache of Deployments lags the
// write it just made, on the in-memory server (HoldWatch) and on a real one
// (WatchLag), and /metrics counts the turns skipped.
//
// Foo: a Foo scaled while the cache has not shown the Deployment the
// controller just created is not reconciled on that cache — which would
// create the Deployment again and fail AlreadyExists — but skipped, and
// reconciled once the cache shows it, with no error.
//
// podrestart: a second pod running while the cache has not shown the first
// restart waits for it, then restarts the deployment again.

func TestFoo_reconciles_through_the_staleness_guard(t *testing.T) {
	srv, c := memoryServer(t)
	// apitest serves Foos once their CRD is stored, as a cluster does.
	if err := foo.InstallCRD(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	fooStale(t, c, c, "default", func() func() { return srv.HoldWatch(apiclient.Deployments) })
}

func TestIntegration_foo_reconciles_through_the_staleness_guard(t *testing.T) {
	c, lagging, lag := lagClients(t, apiclient.Deployments)
	if err := foo.InstallCRD(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	fooStale(t, c, lagging, realtest.Namespace(t, c, "foo-stale"), lag.Hold)
}

func TestPodrestart_reconciles_through_the_staleness_guard(t *testing.T) {
	srv, c := memoryServer(t)
	podrestartStale(t, c, c, "default", func() func() { return srv.HoldWatch(apiclient.Deployments) })
}

func TestIntegration_podrestart_reconciles_through_the_staleness_guard(t *testing.T) {
	c, lagging, lag := lagClients(t, apiclient.Deployments)
	podrestartStale(t, c, lagging, realtest.Namespace(t, c, "kubewire-run-stale"), lag.Hold)
}

// memoryServer is an API server in memory and a client for it.
func memoryServer(t *testing.T) (*apitest.Server, *apiclient.Client) {
	t.Helper()
	srv := apitest.NewServer(nil)
	t.Cleanup(srv.Close)
	c, err := srv.Client(apiclient.Options{})
	must(t, err)
	return srv, c
}

// lagClients are two clients of the real server: c, and lagging, whose
// watches of res go through lag.
func lagClients(t *testing.T, res apiclient.Resource) (c, lagging *apiclient.Client, lag *apitest.WatchLag) {
	t.Helper()
	c, _ = realtest.Client(t, apiclient.Options{})
	cfg, _ := realtest.Config(t)
	rt, err := cfg.Transport()
	must(t, err)
	lag = apitest.NewWatchLag(rt, res)
	lagging, err = apiclient.New(cfg, apiclient.Options{Transport: lag})
	must(t, err)
	return c, lagging, lag
}

// fooStale runs the Foo controller on ctrl (whose Deployments watch hold
// makes lag) with /metrics served, and plays the scaled Foo through c.
func fooStale(t *testing.T, c, ctrl *apiclient.Client, ns string, hold func() (release func())) {
	ctx := context.Background()
	m, addr := runWithMetrics(t, ctrl, ns, func(m *controller.Manager) error { _, err := foo.Setup(m, foo.Options{}); return err })
	synced, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if !m.Informer(foo.Foos).WaitForCacheSync(synced) || !m.Informer(apiclient.Deployments).WaitForCacheSync(synced) {
		t.Fatal("the caches never synced")
	}

	release := hold()
	defer release()
	foos, deployments := c.Resource(foo.Foos).Namespace(ns), c.Resource(apiclient.Deployments).Namespace(ns)
	if _, err := foos.Create(ctx, []byte(`{"apiVersion":"samplecontroller.k8s.io/v1alpha1","kind":"Foo","metadata":{"name":"stale-foo"},"spec":{"deploymentName":"stale-foo","replicas":1}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	// Read with GETs: on the in-memory server, the hold lags every watch of
	// Deployments, a test's too.
	awaitGet(t, deployments, "stale-foo", "the Foo's Deployment", func(*apiclient.Object) bool { return true })
	// Scaling moves the Foo's generation: a turn, while the controller's cache
	// of Deployments still lacks the one it created.
	if _, err := foos.Patch(ctx, "stale-foo", apiclient.MergePatch, []byte(`{"spec":{"replicas":2}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	skipped := `kubewire_reconcile_total{controller="foo",result="stale_skip"}`
	awaitMetric(t, addr, skipped, func(v float64) bool { return v > 0 })
	release()
	awaitGet(t, deployments, "stale-foo", "2 replicas", func(o *apiclient.Object) bool { return specReplicas(o) == "2" })
	page := awaitMetric(t, addr, `kubewire_reconcile_total{controller="foo",result="success"}`, func(v float64) bool { return v >= 2 })
	if !strings.Contains(page, `kubewire_reconcile_total{controller="foo",result="error"} 0`) {
		t.Errorf("reconciles failed (AlreadyExists?):\n%s", grep(page, `kubewire_reconcile_total{controller="foo"`))
	}
	t.Logf("/metrics on %s after the scaled Foo:\n%s", ctrl.Server(), grep(page, `kubewire_reconcile_total{controller="foo"`))
}

// podrestartStale runs the podrestart controller on ctrl (whose Deployments watch hold
// makes lag) with /metrics served, and makes two pods Running through c, the
// second while the controller's cache lags its first restart.
func podrestartStale(t *testing.T, c, ctrl *apiclient.Client, ns string, hold func() (release func())) {
	ctx := context.Background()
	deploy := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"tools"},"spec":{"selector":{"matchLabels":{"app":"tools"}},
		"template":{"metadata":{"labels":{"app":"tools"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}}}`
	deployments, pods := c.Resource(apiclient.Deployments).Namespace(ns), c.Resource(apiclient.Pods).Namespace(ns)
	if _, err := deployments.Create(ctx, []byte(deploy), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"web-1", "web-2"} {
		if _, err := pods.Create(ctx, []byte(`{"metadata":{"name":"`+name+`","labels":{"app":"nginx"}},"spec":{"containers":[{"name":"c","image":"nginx"}]},"status":{"phase":"Pending"}}`), apiclient.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	_, addr := runWithMetrics(t, ctrl, ns, func(m *controller.Manager) error { _, err := podrestart.Setup(m, podrestart.Options{}); return err })
	success := `kubewire_reconcile_total{controller="podrestart",result="success"}`
	awaitMetric(t, addr, success, func(v float64) bool { return v == 1 }) // the deployment's first list: nothing owed

	release := hold()
	defer release()
	running := func(pod string) {
		t.Helper()
		if _, err := pods.Patch(ctx, pod, apiclient.MergePatch, []byte(`{"status":{"phase":"Running"}}`), apiclient.WriteOptions{}, "status"); err != nil {
			t.Fatal(err)
		}
	}
	running("web-1")
	awaitMetric(t, addr, success, func(v float64) bool { return v == 2 }) // restarted
	running("web-2")
	awaitMetric(t, addr, `kubewire_reconcile_total{controller="podrestart",result="stale_skip"}`, func(v float64) bool { return v > 0 })
	release()
	page := awaitMetric(t, addr, success, func(v float64) bool { return v == 3 }) // restarted again, on a cache that shows the first
	t.Logf("/metrics on %s after two pods ran:\n%s", ctrl.Server(), grep(page, `kubewire_reconcile_total{controller="podrestart"`))
}

// runWithMetrics runs a Manager on c in ns, with what setup describes, until
// the test ends, serving /metrics on the address it returns.
func runWithMetrics(t *testing.T, c *apiclient.Client, ns string, setup func(*controller.Manager) error) (*controller.Manager, string) {
	t.Helper()
	addr := fmt.Sprintf("127.0.0.1:%d", realtest.FreePort(t))
	m, err := controller.NewManager(c, controller.ManagerOptions{Namespace: ns, Log: quiet, MetricsAddr: addr})
	must(t, err)
	must(t, setup(m))
	runManager(t, m)
	return m, addr
}

// awaitGet reads the object of rc named name until cond holds; it fails the
// test after a minute.
func awaitGet(t *testing.T, rc apiclient.ResourceClient, name, what string, cond func(*apiclient.Object) bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; runtime.Gosched() {
		o, err := rc.Get(context.Background(), name)
		if err == nil && cond(o) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: %v", what, err)
		}
	}
}

// awaitMetric reads http://addr/metrics until series has a value cond takes,
// and returns the page; it fails the test after a minute.
func awaitMetric(t *testing.T, addr, series string, cond func(float64) bool) string {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; runtime.Gosched() {
		page := scrapeAddr(addr)
		for _, line := range strings.Split(page, "\n") {
			var v float64
			if rest, ok := strings.CutPrefix(line, series+" "); ok {
				if _, err := fmt.Sscan(rest, &v); err == nil && cond(v) {
					return page
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("/metrics: %s never as awaited:\n%s", series, grep(page, series))
		}
	}
}

// scrapeAddr is the /metrics page the Manager serves on addr ("" while it is
// not listening yet).
func scrapeAddr(addr string) string {
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func specReplicas(o *apiclient.Object) string {
	n, _ := o.Field("spec", "replicas")
	return fmt.Sprint(n)
}
