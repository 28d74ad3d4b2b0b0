package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/foo"
)

// A workout makes a built-in controller do its whole job on an API server in
// this process, so that its Manager has made every request the job needs
// (rbac's derive). Each step waits for the controller's effect before the next;
// what the controller did is read through a client of the workout's own, which
// the Manager does not record.
//
// A path a workout does not take is a request missing from the role: each
// says which of its controller's paths it takes, and the real-server tests
// (rbac_integration_test.go) run the controller under the role it gives.

// workout is what a workout drives: the server, a client of its own, and the
// Manager under test, working in ns.
type workout struct {
	srv *apitest.Server
	c   *apiclient.Client
	m   *controller.Manager
	ns  string
}

// podrestartWorkout takes podrestart's one path: a pod first seen Pending
// becomes Running, and the deployment is restarted (a PATCH). Its informers
// list and watch pods and deployments.
func podrestartWorkout(ctx context.Context, w *workout) error {
	if _, err := w.srv.Add(apiclient.Deployments, `{"metadata":{"name":"`+demoDeployment+`","namespace":"`+w.ns+`"},"spec":{"replicas":1,
		"selector":{"matchLabels":{"app":"tools"}},"template":{"metadata":{"labels":{"app":"tools"}},"spec":{"containers":[{"name":"tools","image":"busybox"}]}}}}`); err != nil {
		return err
	}
	seen := newPodEvents("workout")
	w.m.Informer(apiclient.Pods, controller.WithLabels(demoSelector)).AddHandler("workout", seen.handler(), 0)
	pods := w.c.Resource(apiclient.Pods).Namespace(w.ns)
	pod := `{"metadata":{"name":"workout","labels":{"app":"nginx"}},"spec":{"containers":[{"name":"nginx","image":"nginx"}]},"status":{"phase":"Pending"}}`
	if _, err := pods.Create(ctx, []byte(pod), apiclient.WriteOptions{}); err != nil {
		return err
	}
	if err := waitFor(ctx, seen.pending, "the controller to see the Pending pod"); err != nil {
		return err
	}
	if _, err := pods.Patch(ctx, "workout", apiclient.MergePatch, []byte(`{"status":{"phase":"Running"}}`), apiclient.WriteOptions{}, "status"); err != nil {
		return err
	}
	_, err := awaitObject(ctx, w.c.Resource(apiclient.Deployments).Namespace(w.ns), demoDeployment, "the deployment restarted", func(o *apiclient.Object) bool {
		at, _ := o.FieldString("spec", "template", "metadata", "annotations", "kubectl.kubernetes.io/restartedAt")
		return at != ""
	})
	return err
}

// fooWorkout takes foo's paths: a Foo's Deployment created (POST), its
// available replicas written to the Foo's status (PATCH foos/status) once the
// Deployment has some, and the Deployment scaled when the Foo's replicas
// change (server-side apply: PATCH), with an Event each time. The CRD is
// stored first, as the real server would have it, so that foos have their
// status subresource.
func fooWorkout(ctx context.Context, w *workout) error {
	if _, err := w.srv.Add(apiclient.CRDs, fooCRD()); err != nil {
		return err
	}
	foos := w.c.Resource(foo.Foos).Namespace(w.ns)
	deployments := w.c.Resource(apiclient.Deployments).Namespace(w.ns)
	f := `{"apiVersion":"samplecontroller.k8s.io/v1alpha1","kind":"Foo","metadata":{"name":"workout"},"spec":{"deploymentName":"workout","replicas":1}}`
	if _, err := foos.Create(ctx, []byte(f), apiclient.WriteOptions{}); err != nil {
		return err
	}
	if _, err := awaitObject(ctx, deployments, "workout", "the Foo's Deployment created", func(*apiclient.Object) bool { return true }); err != nil {
		return err
	}
	// The Deployment controller's part: one replica available.
	if _, err := deployments.Patch(ctx, "workout", apiclient.MergePatch, []byte(`{"status":{"replicas":1,"readyReplicas":1,"availableReplicas":1}}`), apiclient.WriteOptions{}, "status"); err != nil {
		return err
	}
	if _, err := awaitObject(ctx, foos, "workout", "the Foo's status written", func(o *apiclient.Object) bool {
		return fieldIs(o, "1", "status", "availableReplicas")
	}); err != nil {
		return err
	}
	if _, err := foos.Patch(ctx, "workout", apiclient.MergePatch, []byte(`{"spec":{"replicas":2}}`), apiclient.WriteOptions{}); err != nil {
		return err
	}
	_, err := awaitObject(ctx, deployments, "workout", "the Deployment scaled", func(o *apiclient.Object) bool {
		return fieldIs(o, "2", "spec", "replicas")
	})
	return err
}

// awaitObject lists the object of rc named name, then watches it from there,
// until it exists and cond holds; what names the wait in the error.
func awaitObject(ctx context.Context, rc apiclient.ResourceClient, name, what string, cond func(*apiclient.Object) bool) (*apiclient.Object, error) {
	sel := apiclient.ListOptions{FieldSelector: "metadata.name=" + name}
	list, err := rc.List(ctx, sel)
	if err != nil {
		return nil, fmt.Errorf("waiting for %s: %w", what, err)
	}
	for _, o := range list.Items {
		if cond(o) {
			return o, nil
		}
	}
	sel.ResourceVersion = list.ResourceVersion
	watch, err := rc.Watch(ctx, apiclient.WatchOptions{ListOptions: sel})
	if err != nil {
		return nil, fmt.Errorf("waiting for %s: %w", what, err)
	}
	defer watch.Close()
	for {
		ev, err := watch.Next()
		if err != nil {
			return nil, fmt.Errorf("gave up waiting for %s: %w", what, err)
		}
		if ev.Object != nil && ev.Type != "DELETED" && cond(ev.Object) {
			return ev.Object, nil
		}
	}
}

// fieldIs reports whether the number at path in o is want.
func fieldIs(o *apiclient.Object, want string, path ...string) bool {
	v, _ := o.Field(path...)
	n, ok := v.(json.Number)
	return ok && n.String() == want
}

// fooCRD is the CustomResourceDefinition of Foo that manifests prints and the
// foo workout stores, as JSON: the one built from Foo's Go type (foo.CRD,
// controller/crd), the same that run foo --install-crd applies.
func fooCRD() []byte {
	data, err := json.Marshal(foo.CRD())
	if err != nil {
		panic(fmt.Sprintf("foo's CRD does not encode: %v", err)) // a programmer's error: the type is fixed
	}
	return data
}
