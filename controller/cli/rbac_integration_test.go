package cli_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/builtin"
	"github.com/kubewire/kubewire/apiclient/realtest"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/foo"
	"github.com/kubewire/kubewire/controller/leaderelection"
	"github.com/kubewire/kubewire/controller/podrestart"
	"github.com/kubewire/kubewire/controller/rbac"
)

// The proof of `kubewire manifests foo` and `kubewire rbac`: on a real
// kube-apiserver (RBAC authorization), every document is accepted by a
// server-side apply, and the foo controller, run as the ServiceAccount the
// manifests make (impersonated: there is no kubelet to run the pod), does its
// whole job — the Lease taken and renewed, a Foo's Deployment created, its
// status written, the Deployment scaled, Events written and counted — without
// one 403, and the role grants nothing the run did not use.
func TestIntegration_manifests_apply_and_foo_runs_under_exactly_its_role(t *testing.T) {
	c, _, ns := realCluster(t, "kubewire-rbac-foo")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	code, out, stderr := run(t, nil, "manifests", "foo", "-n", ns, "--replicas", "2", "--image", "registry.example/kubewire:test")
	if code != 0 {
		t.Fatalf("manifests: exit %d: %s", code, stderr)
	}
	applyAll(ctx, t, c, out)
	if err := foo.InstallCRD(ctx, c); err != nil { // served once Established: wait for discovery
		t.Fatal(err)
	}

	sa := rbac.ServiceAccount{Name: "kubewire-foo", Namespace: ns}
	as := impersonated(t, sa, cancel)
	m, err := controller.NewManager(as, controller.ManagerOptions{Namespace: ns, Log: quietLogger,
		LeaderElection: leaderelection.ForLease(ns, "kubewire-foo", "proof")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := foo.Setup(m, foo.Options{Workers: 2}); err != nil {
		t.Fatal(err)
	}
	stop := runManager(t, m)

	// The job, as a user and the Deployment controller would drive it.
	foos, deployments := c.Resource(foo.Foos).Namespace(ns), c.Resource(apiclient.Deployments).Namespace(ns)
	if _, err := foos.Create(ctx, []byte(`{"apiVersion":"samplecontroller.k8s.io/v1alpha1","kind":"Foo","metadata":{"name":"proof"},"spec":{"deploymentName":"proof","replicas":1}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitObject(ctx, t, deployments, "proof", func(*apiclient.Object) bool { return true })
	if _, err := deployments.Patch(ctx, "proof", apiclient.MergePatch, []byte(`{"status":{"replicas":1,"readyReplicas":1,"availableReplicas":1}}`), apiclient.WriteOptions{}, "status"); err != nil {
		t.Fatal(err)
	}
	waitObject(ctx, t, foos, "proof", func(o *apiclient.Object) bool {
		v, _ := o.Field("status", "availableReplicas")
		return fmt.Sprint(v) == "1"
	})
	if _, err := foos.Patch(ctx, "proof", apiclient.MergePatch, []byte(`{"spec":{"replicas":2}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitObject(ctx, t, deployments, "proof", func(o *apiclient.Object) bool { v, _ := o.Field("spec", "replicas"); return fmt.Sprint(v) == "2" })
	eventsV1 := apiclient.Resource{Group: "events.k8s.io", Version: "v1", Name: "events", Kind: "Event", Namespaced: true}
	waitMatch(ctx, t, c.Resource(eventsV1).Namespace(ns), "a Synced Event counted twice", func(o *apiclient.Object) bool {
		v, _ := o.Field("series", "count")
		return fmt.Sprint(v) != "<nil>" && fmt.Sprint(v) != "1"
	})
	leases := c.Resource(apiclient.Leases).Namespace(ns)
	taken := waitObject(ctx, t, leases, "kubewire-foo", func(*apiclient.Object) bool { return true })
	waitObject(ctx, t, leases, "kubewire-foo", func(o *apiclient.Object) bool { return o.Metadata.ResourceVersion != taken.Metadata.ResourceVersion }) // renewed
	if err := stop(); err != nil {
		t.Fatal(err)
	}

	checkExactly(t, m, out)
}

// podrestart, run as the ServiceAccount `kubewire rbac podrestart
// --leader-elect` binds, restarts the deployment when a pod it saw Pending is
// Running, without one 403, and its role grants nothing more than it used.
func TestIntegration_podrestart_runs_under_exactly_its_role(t *testing.T) {
	c, _, ns := realCluster(t, "kubewire-rbac-pr")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	code, out, stderr := run(t, nil, "rbac", "podrestart", "-n", ns, "--leader-elect")
	if code != 0 {
		t.Fatalf("rbac: exit %d: %s", code, stderr)
	}
	sa := rbac.ServiceAccount{Name: "kubewire-podrestart", Namespace: ns}
	if _, err := c.Resource(apiclient.Resource{Version: "v1", Name: "serviceaccounts", Kind: "ServiceAccount", Namespaced: true}).Namespace(ns).
		Create(ctx, []byte(`{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"kubewire-podrestart"}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	applyAll(ctx, t, c, out)
	deployments, pods := c.Resource(apiclient.Deployments).Namespace(ns), c.Resource(apiclient.Pods).Namespace(ns)
	if _, err := deployments.Create(ctx, []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"tools"},
		"spec":{"selector":{"matchLabels":{"app":"t"}},"template":{"metadata":{"labels":{"app":"t"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}

	as := impersonated(t, sa, cancel)
	m, err := controller.NewManager(as, controller.ManagerOptions{Namespace: ns, Log: quietLogger,
		LeaderElection: leaderelection.ForLease(ns, "kubewire-podrestart", "proof")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := podrestart.Setup(m, podrestart.Options{}); err != nil {
		t.Fatal(err)
	}
	pending := make(chan struct{})
	var once sync.Once
	m.Informer(apiclient.Pods, controller.WithLabels("app=nginx")).AddHandler("proof", podSeenPending("web", func() { once.Do(func() { close(pending) }) }), 0)
	stop := runManager(t, m)
	if _, err := pods.Create(ctx, []byte(`{"metadata":{"name":"web","labels":{"app":"nginx"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-pending:
	case <-ctx.Done():
		t.Fatal("the controller never saw the pod Pending")
	}
	if _, err := pods.Patch(ctx, "web", apiclient.MergePatch, []byte(`{"status":{"phase":"Running"}}`), apiclient.WriteOptions{}, "status"); err != nil {
		t.Fatal(err)
	}
	waitObject(ctx, t, deployments, "tools", func(o *apiclient.Object) bool {
		at, _ := o.FieldString("spec", "template", "metadata", "annotations", "kubectl.kubernetes.io/restartedAt")
		return at != ""
	})
	leases := c.Resource(apiclient.Leases).Namespace(ns)
	taken := waitObject(ctx, t, leases, "kubewire-podrestart", func(*apiclient.Object) bool { return true })
	waitObject(ctx, t, leases, "kubewire-podrestart", func(o *apiclient.Object) bool { return o.Metadata.ResourceVersion != taken.Metadata.ResourceVersion })
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	checkExactly(t, m, out)
}

var quietLogger = slog.New(slog.NewTextHandler(io.Discard, nil))

// impersonated is a client of the test server that acts as sa, as a pod
// running as sa would (kubeconfig's as and as-groups: the Impersonate-User and
// Impersonate-Group headers). A request refused (403) fails the test, and
// ends it at once through cancel, the test's context: the job would wait for
// what never comes.
func impersonated(t *testing.T, sa rbac.ServiceAccount, cancel context.CancelFunc) *apiclient.Client {
	t.Helper()
	cfg, _ := realtest.Config(t)
	cfg.Auth.Impersonate, cfg.Auth.ImpersonateGroups = sa.User(), sa.Groups()
	c, err := apiclient.New(cfg, apiclient.Options{QPS: -1, Log: quietLogger})
	if err != nil {
		t.Fatal(err)
	}
	c = c.Derive(apiclient.Derived{Observer: apiclient.Observer{Answered: func(_ context.Context, r apiclient.RequestInfo) {
		if r.Code == 403 {
			t.Errorf("refused (403) under the generated role: %s %s (%s %s/%s)", r.Verb, r.URL, r.Action, r.Resource, r.Subresource)
			cancel()
		}
	}}})
	return c
}

// checkExactly checks that the role in yamlText grants nothing the Manager
// did not use —
// but list of a resource it watched: a streaming list (kube-apiserver before
// 1.33) is a watch, and falls back to LIST where the server refuses one.
func checkExactly(t *testing.T, m *controller.Manager, yamlText string) {
	t.Helper()
	used := m.Permissions().Used
	for _, a := range granted(t, yamlText) {
		if contains(used, a) {
			continue
		}
		if watched := a; a.Verb == "list" {
			watched.Verb = "watch"
			if contains(used, watched) {
				continue
			}
		}
		t.Errorf("the role grants %+v, which the run did not use", a)
	}
}

// granted reads the Roles and ClusterRoles of a YAML stream back as
// accesses.
func granted(t *testing.T, yamlText string) []rbac.Access {
	t.Helper()
	var out []rbac.Access
	for _, doc := range documents(t, yamlText) {
		var role builtin.Role // a ClusterRole reads the same
		if err := json.Unmarshal(doc, &role); err != nil {
			t.Fatal(err)
		}
		if role.Kind != "Role" && role.Kind != "ClusterRole" {
			continue
		}
		for _, r := range role.Rules {
			for _, g := range r.APIGroups {
				for _, res := range r.Resources {
					resource, sub, _ := strings.Cut(res, "/")
					for _, v := range r.Verbs {
						out = append(out, rbac.Access{Verb: v, Group: g, Resource: resource, Subresource: sub, Namespace: role.Namespace})
					}
				}
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("the YAML grants nothing")
	}
	return out
}

func contains(list []rbac.Access, a rbac.Access) bool {
	for _, x := range list {
		if x == a {
			return true
		}
	}
	return false
}

// documents splits a YAML stream into its documents, each as JSON.
func documents(t *testing.T, text string) [][]byte {
	t.Helper()
	dec := yaml.NewDecoder(strings.NewReader(text))
	var out [][]byte
	for {
		var doc map[string]any
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
}

// applyAll applies each document of a YAML stream, server-side and for real,
// as kubectl apply --server-side does, and fails the test unless the server
// accepted each. A CRD that another test's manager owns differently is a
// conflict: then it is applied as a dry run with Force, which the server
// still validates whole, rather than overwriting what that test relies on.
func applyAll(ctx context.Context, t *testing.T, c *apiclient.Client, yamlText string) {
	t.Helper()
	for _, doc := range documents(t, yamlText) {
		var tm apiclient.TypeMeta
		if err := json.Unmarshal(doc, &tm); err != nil {
			t.Fatal(err)
		}
		res, err := c.Resolve(ctx, strings.ToLower(tm.Kind))
		if err != nil {
			t.Fatalf("%s: %v", tm.Kind, err)
		}
		opts := apiclient.WriteOptions{FieldManager: "kubewire-manifests-test"}
		obj, err := c.Resource(res).Apply(ctx, doc, opts)
		if apiclient.IsConflict(err) && !res.Namespaced {
			opts.DryRun, opts.Force = true, true
			obj, err = c.Resource(res).Apply(ctx, doc, opts)
		}
		if err != nil {
			t.Fatalf("apply %s: %v\n%s", tm.Kind, err, doc)
		}
		if obj.Metadata.UID == "" {
			t.Fatalf("apply %s: the answer has no uid: %s", tm.Kind, obj.Raw())
		}
	}
}

// runManager runs m until the returned stop is called (or the test ends),
// and stop returns what Run returned.
func runManager(t *testing.T, m *controller.Manager) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }() // owned here: stop waits for it
	var err error
	var once sync.Once
	stop = func() error { once.Do(func() { cancel(); err = <-done }); return err }
	t.Cleanup(func() { _ = stop() })
	return stop
}

// podSeenPending calls seen when the informer delivers the pod named name in
// phase Pending.
func podSeenPending(name string, seen func()) podHandler {
	return podHandler{name: name, seen: seen}
}

type podHandler struct {
	name string
	seen func()
}

func (h podHandler) OnAdd(o *apiclient.Object, _ bool) { h.check(o) }
func (h podHandler) OnUpdate(_, o *apiclient.Object)   { h.check(o) }
func (h podHandler) OnDelete(*apiclient.Object, bool)  {}
func (h podHandler) check(o *apiclient.Object) {
	if phase, _ := o.FieldString("status", "phase"); o.Metadata.Name == h.name && phase == "Pending" {
		h.seen()
	}
}

// waitObject watches the object of rc named name until cond holds.
func waitObject(ctx context.Context, t *testing.T, rc apiclient.ResourceClient, name string, cond func(*apiclient.Object) bool) *apiclient.Object {
	t.Helper()
	return waitWatch(ctx, t, rc, apiclient.ListOptions{FieldSelector: "metadata.name=" + name}, name, cond)
}

// waitMatch watches rc until an object satisfies cond.
func waitMatch(ctx context.Context, t *testing.T, rc apiclient.ResourceClient, what string, cond func(*apiclient.Object) bool) *apiclient.Object {
	t.Helper()
	return waitWatch(ctx, t, rc, apiclient.ListOptions{}, what, cond)
}

func waitWatch(ctx context.Context, t *testing.T, rc apiclient.ResourceClient, sel apiclient.ListOptions, what string, cond func(*apiclient.Object) bool) *apiclient.Object {
	t.Helper()
	list, err := rc.List(ctx, sel)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range list.Items {
		if cond(o) {
			return o
		}
	}
	sel.ResourceVersion = list.ResourceVersion
	w, err := rc.Watch(ctx, apiclient.WatchOptions{ListOptions: sel})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for {
		ev, err := w.Next()
		if err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		if ev.Object != nil && ev.Type != apiclient.Deleted && cond(ev.Object) {
			return ev.Object
		}
	}
}
