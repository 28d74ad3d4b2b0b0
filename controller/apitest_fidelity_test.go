package controller_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/realtest"
	"github.com/kubewire/kubewire/controller"
)

// Issue 30's operator: it reconciles a Site by server-side applying a
// ConfigMap and a Deployment it owns and patching the Site's status — every
// time, changed or not, as apply-based controllers do — with no predicate to
// filter its events. On kube-apiserver such writes change nothing once the
// world agrees, so they send no event and the controller goes quiet. On an API
// server that made a new resourceVersion and an event of every write, it
// reconciled forever (100 to 280 times a second in the user's test).
//
// The test converges a Site, then sends markers down each of the
// controller's watches twice (round, below): whatever was written before a
// marker is reconciled before it. Between the two rounds the Site must be
// reconciled no more and its objects not written. On apitest always; on the real server of
// KUBEWIRE_TEST_KUBECONFIG too when it is set, to show it is the same there.
func TestOperator_is_idle_once_converged_on_apitest(t *testing.T) {
	srv := apitest.NewServer(nil)
	srv.CreateNamespaces("demo")
	t.Cleanup(srv.Close)
	c, err := srv.Client(apiclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	operatorGoesQuiet(t, c, "demo")
}

func TestIntegration_operator_is_idle_once_converged(t *testing.T) {
	c, _ := realtest.Client(t, apiclient.Options{QPS: 50, Burst: 100})
	operatorGoesQuiet(t, c, realtest.Namespace(t, c, "kubewire-fidelity"))
}

var siteResource = apiclient.Resource{Group: "fidelity.kubewire.dev", Version: "v1", Name: "sites", Kind: "Site", Namespaced: true}

const siteCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"sites.fidelity.kubewire.dev"},
"spec":{"group":"fidelity.kubewire.dev","scope":"Namespaced",
 "names":{"plural":"sites","singular":"site","kind":"Site","listKind":"SiteList"},
 "versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}},
  "schema":{"openAPIV3Schema":{"type":"object","properties":{
   "spec":{"type":"object","properties":{"replicas":{"type":"integer"},"message":{"type":"string"}}},
   "status":{"type":"object","properties":{"ready":{"type":"boolean"},"observedGeneration":{"type":"integer"}}}}}}}]}}`

type siteObject struct {
	apiclient.TypeMeta
	apiclient.ObjectMeta `json:"metadata"`
	Spec                 struct {
		Replicas int    `json:"replicas"`
		Message  string `json:"message"`
	} `json:"spec"`
}

func (*siteObject) Resource() apiclient.Resource { return siteResource }

func operatorGoesQuiet(t *testing.T, c *apiclient.Client, ns string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	installSiteCRD(t, ctx, c)
	m, err := controller.NewManager(c, controller.ManagerOptions{Namespace: ns, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	lister := controller.Lister[siteObject](m)
	var reconciles atomic.Int64 // of the Site "web"
	markers := make(chan string, 16)
	reconcile := func(ctx context.Context, req controller.Request) (controller.Result, error) {
		s, err := lister.Get(req.Namespace, req.Name)
		if apiclient.IsNotFound(err) {
			return controller.Result{}, nil
		}
		if err != nil {
			return controller.Result{}, err
		}
		if s.Labels["marker"] != "" {
			markers <- s.Name
			return controller.Result{}, nil
		}
		reconciles.Add(1)
		return controller.Result{}, reconcileSite(ctx, c, s)
	}
	ctl, err := controller.New(m, "site", controller.Options{Workers: 1}).
		For(siteResource).Owns(apiclient.ConfigMaps).Owns(apiclient.Deployments).
		Complete(controller.ReconcilerFunc(reconcile))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }() // owned here: waited for at the end
	defer func() {
		cancel()
		<-done
	}()

	siteRes := c.Resource(siteResource).Namespace(ns)
	if _, err := siteRes.Create(ctx, []byte(`{"apiVersion":"fidelity.kubewire.dev/v1","kind":"Site","metadata":{"name":"web"},"spec":{"replicas":2,"message":"hello"}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	awaitReady(t, ctx, siteRes)

	// A round sends a marker down each of the controller's three watches —
	// a Site, a ConfigMap and a Deployment each owned by a Site of their own —
	// and waits for the reconcile each causes. Each watch hands its events to
	// the queue in order, and its one worker takes them in order: once the
	// markers are reconciled, so is everything that came before them.
	waitMarker := func(name string) {
		t.Helper()
		for {
			select {
			case got := <-markers:
				if got == name {
					return
				}
			case <-ctx.Done():
				t.Fatalf("marker %s was not reconciled: the controller is busy with something else", name)
			}
		}
	}
	// A turn the staleness guard held back (its cache did not show yet what
	// the Site's last reconcile wrote) waits beside the queue, not in it, so
	// markers can pass it: a round is sent again until, its markers through,
	// the controller is idle — nothing queued, held back or being reconciled
	// (the last marker's own turn may still be ending: then once more).
	idle := func() bool {
		s, q := ctl.Stats(), m.Pipeline().Controllers[0].Queue
		return s.Backoff == 0 && s.Active == 0 && q.Depth == 0 && q.Delayed == 0 && q.Processing == 0
	}
	var markRound func(n int)
	round := func(n int) {
		t.Helper()
		markRound(n)
		for again := 1; !idle(); again++ {
			markRound(n*100 + again)
		}
	}
	markRound = func(n int) {
		t.Helper()
		for i, child := range []struct {
			res  apiclient.Resource
			body string
		}{
			{},
			{apiclient.ConfigMaps, `{"apiVersion":"v1","kind":"ConfigMap"}`},
			{apiclient.Deployments, `{"apiVersion":"apps/v1","kind":"Deployment","spec":{"replicas":0,"selector":{"matchLabels":{"m":"x"}},` +
				`"template":{"metadata":{"labels":{"m":"x"}},"spec":{"containers":[{"name":"c","image":"img"}]}}}}`},
		} {
			name := fmt.Sprintf("marker-%d-%d", n, i)
			owner, err := siteRes.Create(ctx, []byte(`{"apiVersion":"fidelity.kubewire.dev/v1","kind":"Site","metadata":{"name":"`+name+`","labels":{"marker":"yes"}},"spec":{}}`), apiclient.WriteOptions{})
			if err != nil {
				t.Fatal(err)
			}
			waitMarker(name) // its own ADDED, down the Sites' watch
			if child.body == "" {
				continue
			}
			var body map[string]any
			if err := apiclient.Unmarshal([]byte(child.body), &body); err != nil {
				t.Fatal(err)
			}
			body["metadata"] = controller.ChildOf(&siteObject{ObjectMeta: owner.Metadata}, name)
			if _, err := c.Resource(child.res).Namespace(ns).Create(ctx, body, apiclient.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			waitMarker(name) // again, down the watch of what it owns
		}
	}
	versions := func() []string {
		t.Helper()
		var out []string
		for _, o := range []struct {
			res  apiclient.Resource
			name string
		}{{siteResource, "web"}, {apiclient.ConfigMaps, "web-config"}, {apiclient.Deployments, "web"}} {
			got, err := c.Resource(o.res).Namespace(ns).Get(ctx, o.name)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, o.res.Name+" "+got.Metadata.ResourceVersion)
		}
		return out
	}
	round(1)
	before, rvs := reconciles.Load(), versions()
	t.Logf("converged in %d reconciles", before)
	round(2)
	if after := reconciles.Load(); after != before {
		t.Errorf("the Site was reconciled %d more times after it converged (%d in all); want none", after-before, after)
	}
	if after := versions(); fmt.Sprint(after) != fmt.Sprint(rvs) {
		t.Errorf("the Site's objects were written after it converged: resourceVersions %v, then %v; want no writes", rvs, after)
	}
	if s := ctl.Stats(); s.Errors != 0 {
		t.Errorf("reconcile errors: %d", s.Errors)
	}
}

// reconcileSite applies the Site's ConfigMap and Deployment and patches its
// status, whatever they are now.
func reconcileSite(ctx context.Context, c *apiclient.Client, s *siteObject) error {
	opts := apiclient.WriteOptions{FieldManager: "site-operator", Force: true}
	cm := controller.ChildOf(s, s.Name+"-config")
	if _, err := c.Resource(apiclient.ConfigMaps).Apply(ctx, map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": cm, "data": map[string]any{"message": s.Spec.Message}}, opts); err != nil {
		return err
	}
	labels := map[string]any{"site": s.Name}
	d := controller.ChildOf(s, s.Name)
	if _, err := c.Resource(apiclient.Deployments).Apply(ctx, map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": d, "spec": map[string]any{"replicas": s.Spec.Replicas, "selector": map[string]any{"matchLabels": labels},
			"template": map[string]any{"metadata": map[string]any{"labels": labels},
				"spec": map[string]any{"containers": []any{map[string]any{"name": "web", "image": "nginx:1.27"}}}}}}, opts); err != nil {
		return err
	}
	status := fmt.Sprintf(`{"status":{"ready":true,"observedGeneration":%d}}`, s.Generation)
	_, err := c.Resource(siteResource).Namespace(s.Namespace).Patch(ctx, s.Name, apiclient.MergePatch, []byte(status), apiclient.WriteOptions{}, "status")
	return err
}

func installSiteCRD(t *testing.T, ctx context.Context, c *apiclient.Client) {
	t.Helper()
	if _, err := c.Resource(apiclient.CRDs).Create(ctx, []byte(siteCRD), apiclient.WriteOptions{}); err != nil && !apiclient.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	awaitServed(t, ctx, c)
}

// awaitServed waits until the server answers a LIST of Sites. A real server
// serves a new CRD's resource a moment after the create, once its
// controllers have accepted the names and set Established, and a request in
// between is a 404. A watch of the CRD for Established is not enough: its
// first event can be the CRD before any condition is set (CI met that), and
// Established still comes a moment before the handler answers (CI met that
// too). A LIST answered is the thing itself, so it asks that, backing off.
func awaitServed(t *testing.T, ctx context.Context, c *apiclient.Client) {
	t.Helper()
	try := apiclient.Backoff{Steps: 11, Initial: 10 * time.Millisecond, Factor: 2} // about 20 s in all
	err := apiclient.Retry(ctx, try, apiclient.RealClock{}, apiclient.IsNotFound, func() error {
		_, err := c.Resource(siteResource).List(ctx, apiclient.ListOptions{Limit: 1})
		return err
	})
	if err != nil {
		t.Fatalf("the Site CRD was created, and its resource is not served 20 s later: %v", err)
	}
}

// awaitReady watches the Site "web" until its status says ready.
func awaitReady(t *testing.T, ctx context.Context, rc apiclient.ResourceClient) {
	t.Helper()
	w, err := rc.Watch(ctx, apiclient.WatchOptions{ListOptions: apiclient.ListOptions{FieldSelector: "metadata.name=web"}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for {
		ev, err := w.Next()
		if err != nil {
			t.Fatalf("waiting for the Site to be ready: %v", err)
		}
		if ready, _ := ev.Object.Field("status", "ready"); ready == true {
			return
		}
	}
}
