package foo_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/foo"
	"github.com/kubewire/kubewire/controller/leaderelection"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

var eventsV1 = apiclient.Resource{Group: "events.k8s.io", Version: "v1", Name: "events", Kind: "Event", Namespaced: true}

// runFoo runs the Foo controller in ns on c, with leader election and two
// workers, as `kubewire run foo --leader-elect --workers 2` does, until the test
// ends.
func runFoo(t *testing.T, c *apiclient.Client, ns string) *foo.Reconciler {
	t.Helper()
	m, err := controller.NewManager(c, controller.ManagerOptions{Namespace: ns, Log: quiet,
		LeaderElection: leaderelection.ForLease(ns, "kubewire-foo", "test")})
	if err != nil {
		t.Fatal(err)
	}
	r, err := foo.Setup(m, foo.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	})
	return r
}

// await watches the object of rc named name until cond holds, and returns it.
func await(t *testing.T, rc apiclient.ResourceClient, name, what string, cond func(*apiclient.Object) bool) *apiclient.Object {
	t.Helper()
	return awaitMatch(t, rc, apiclient.ListOptions{FieldSelector: "metadata.name=" + name}, what, cond)
}

// awaitEvent waits for an Event about the Foo named fooName with this reason.
func awaitEvent(t *testing.T, c *apiclient.Client, ns, fooName, reason string) *apiclient.Object {
	t.Helper()
	return awaitMatch(t, c.Resource(eventsV1).Namespace(ns), apiclient.ListOptions{}, "event "+reason+" on foo "+fooName, func(o *apiclient.Object) bool {
		r, _ := o.FieldString("reason")
		n, _ := o.FieldString("regarding", "name")
		return r == reason && n == fooName
	})
}

// awaitMatch lists what sel selects, then watches it from there, until an
// object that exists satisfies cond, and returns it. The watchdog only ends a
// test that would otherwise hang; nothing here waits on time.
func awaitMatch(t *testing.T, rc apiclient.ResourceClient, sel apiclient.ListOptions, what string, cond func(*apiclient.Object) bool) *apiclient.Object {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
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
		if (ev.Type == apiclient.Added || ev.Type == apiclient.Modified) && cond(ev.Object) {
			return ev.Object
		}
	}
}

func replicas(o *apiclient.Object) string {
	n, _ := o.Field("spec", "replicas")
	return fmt.Sprint(n)
}

// scenario is every behaviour of the Foo controller, one after the other, on
// the API server behind c (the in-memory one, or a real one).
func scenario(t *testing.T, c *apiclient.Client, ns string) {
	ctx := context.Background()
	foos := c.Resource(foo.Foos).Namespace(ns)
	deployments := c.Resource(apiclient.Deployments).Namespace(ns)
	r := runFoo(t, c, ns)

	// A Foo gets its Deployment: named as asked, labelled, its replicas,
	// controlled by the Foo.
	f, err := foos.Create(ctx, []byte(`{"apiVersion":"samplecontroller.k8s.io/v1alpha1","kind":"Foo","metadata":{"name":"example-foo"},"spec":{"deploymentName":"example-foo","replicas":1}}`), apiclient.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d := await(t, deployments, "example-foo", "the Foo's Deployment", func(*apiclient.Object) bool { return true })
	refs := d.Metadata.OwnerReferences
	if len(refs) != 1 || refs[0].UID != f.Metadata.UID || refs[0].Kind != "Foo" || refs[0].Controller == nil || !*refs[0].Controller {
		t.Fatalf("deployment owner references %+v, want the Foo as controller", refs)
	}
	image, _ := d.FieldString("spec", "template", "spec", "containers", "0", "image")
	if d.Metadata.Labels["app"] != "nginx" || d.Metadata.Labels["controller"] != "example-foo" || replicas(d) != "1" {
		t.Fatalf("deployment labels %v, replicas %s, image %q", d.Metadata.Labels, replicas(d), image)
	}
	awaitEvent(t, c, ns, "example-foo", "Synced")

	// Scaling the Foo scales the Deployment.
	if _, err := foos.Patch(ctx, "example-foo", apiclient.MergePatch, []byte(`{"spec":{"replicas":3}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	await(t, deployments, "example-foo", "3 replicas", func(o *apiclient.Object) bool { return replicas(o) == "3" })

	// The Deployment's available replicas (as its controller would report them)
	// show in the Foo's status.
	if _, err := deployments.Patch(ctx, "example-foo", apiclient.MergePatch,
		[]byte(`{"status":{"replicas":3,"readyReplicas":3,"availableReplicas":3}}`), apiclient.WriteOptions{}, "status"); err != nil {
		t.Fatal(err)
	}
	await(t, foos, "example-foo", "status.availableReplicas 3", func(o *apiclient.Object) bool {
		n, _ := o.Field("status", "availableReplicas")
		return fmt.Sprint(n) == "3"
	})

	// A Deployment deleted by hand comes back.
	if err := deployments.Delete(ctx, "example-foo", apiclient.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	await(t, deployments, "example-foo", "the Deployment recreated", func(o *apiclient.Object) bool { return o.Metadata.UID != d.Metadata.UID })

	// A Deployment of that name that is not the Foo's is left alone, and said so.
	if _, err := deployments.Create(ctx, []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"taken"},"spec":{"replicas":1,
		"selector":{"matchLabels":{"app":"other"}},"template":{"metadata":{"labels":{"app":"other"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := foos.Create(ctx, []byte(`{"apiVersion":"samplecontroller.k8s.io/v1alpha1","kind":"Foo","metadata":{"name":"intruder"},"spec":{"deploymentName":"taken","replicas":2}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	e := awaitEvent(t, c, ns, "intruder", "ErrResourceExists")
	if typ, _ := e.FieldString("type"); typ != "Warning" {
		t.Fatalf("ErrResourceExists is a %s event", typ)
	}
	if taken, _ := deployments.Get(ctx, "taken"); len(taken.Metadata.OwnerReferences) != 0 || replicas(taken) != "1" {
		t.Fatalf("someone else's deployment was changed: owners %v, replicas %s", taken.Metadata.OwnerReferences, replicas(taken))
	}
	// Once the other Deployment is gone, the Foo that wanted the name gets its own.
	if err := deployments.Delete(ctx, "taken", apiclient.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	await(t, deployments, "taken", "the intruder's own Deployment", func(o *apiclient.Object) bool {
		refs := o.Metadata.OwnerReferences
		return len(refs) == 1 && refs[0].Name == "intruder" && replicas(o) == "2"
	})

	// A Foo without a deploymentName is a Warning, not a retry loop: Reconcile
	// says so and returns no error (asked again, now that the cache holds it).
	if _, err := foos.Create(ctx, []byte(`{"apiVersion":"samplecontroller.k8s.io/v1alpha1","kind":"Foo","metadata":{"name":"nameless"},"spec":{"replicas":1}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	awaitEvent(t, c, ns, "nameless", "InvalidSpec")
	if res, err := r.Reconcile(ctx, controller.Request{Namespace: ns, Name: "nameless"}); err != nil || res != (controller.Result{}) {
		t.Fatalf("reconcile of a Foo without deploymentName: %+v, %v; want no error and no requeue", res, err)
	}
}
