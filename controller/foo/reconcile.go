package foo

import (
	"context"
	"fmt"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/builtin"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/events"
	"github.com/kubewire/kubewire/controller/status"
)

// The events a Foo gets, as sample-controller words them.
const (
	reasonSynced    = "Synced"
	messageSynced   = "Foo synced successfully"
	reasonExists    = "ErrResourceExists"
	messageExists   = "Resource %q already exists and is not managed by Foo"
	reasonNoName    = "InvalidSpec"
	messageNoName   = "spec.deploymentName must be specified"
	fieldManager    = "kubewire-foo"
	reconcileAction = "Reconcile"
)

// Reconcile makes the world match one Foo: its Deployment exists, is the Foo's,
// and has the Foo's replicas; its status shows the Deployment's available
// replicas. It reads both from the cache, and writes only what differs.
func (r *Reconciler) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	foo, err := r.foos.Get(req.Namespace, req.Name)
	if apiclient.IsNotFound(err) {
		return controller.Result{}, nil // deleted: the garbage collector deletes its Deployment
	}
	if err != nil {
		return controller.Result{}, err
	}
	name := foo.Spec.DeploymentName
	if name == "" {
		// A spec no retry can fix: say so on the Foo, and wait for the user to
		// change it (that change is an event).
		r.events.Eventf(foo, events.Warning, reasonNoName, reconcileAction, messageNoName)
		return controller.Result{}, nil
	}

	d, err := r.deployments.Get(foo.Namespace, name)
	switch {
	case apiclient.IsNotFound(err):
		if d, err = r.create(ctx, foo); err != nil {
			return controller.Result{}, err
		}
	case err != nil:
		return controller.Result{}, err
	case !controller.IsControlledBy(&d.ObjectMeta, foo):
		// Someone else's Deployment of that name: leave it alone, and say so. No
		// retry: it would find the same. When that Deployment changes or goes, or
		// the Foo changes, the watches bring the Foo back (Setup).
		r.events.Eventf(foo, events.Warning, reasonExists, reconcileAction, messageExists, name)
		return controller.Result{}, nil
	case foo.Spec.Replicas != nil && (d.Spec.Replicas == nil || *d.Spec.Replicas != *foo.Spec.Replicas):
		if d, err = r.scale(ctx, foo, d); err != nil {
			return controller.Result{}, err
		}
	}

	if _, err := status.Update(ctx, r.client, foo, Status{AvailableReplicas: d.Status.AvailableReplicas}); err != nil {
		return controller.Result{}, err
	}
	r.events.Eventf(foo, events.Normal, reasonSynced, reconcileAction, messageSynced)
	return controller.Result{}, nil
}

// create makes the Foo's Deployment. A POST, not an apply: if a Deployment of
// that name appeared since the cache last looked, the create fails
// (AlreadyExists), the Request is retried, and by then the cache shows whose it
// is. An apply would have quietly taken it over.
func (r *Reconciler) create(ctx context.Context, foo *Foo) (*builtin.Deployment, error) {
	d, err := apiclient.NewTyped[builtin.Deployment](r.client).Create(ctx, newDeployment(foo), apiclient.WriteOptions{FieldManager: fieldManager})
	if err != nil {
		return nil, fmt.Errorf("create deployment %s for foo %s: %w", foo.Spec.DeploymentName, foo.Name, err)
	}
	return d, nil
}

// scale brings an owned Deployment to the Foo's replicas by server-side apply
// of the whole intended Deployment, with Force: this controller decides those
// fields, whoever last wrote them (kubectl scale, say). The apply carries the
// resourceVersion the cache read, which makes it conditional: if the Deployment
// changed since (replaced by someone else's of the same name, even), the server
// answers Conflict, and the retry reads the cache again.
func (r *Reconciler) scale(ctx context.Context, foo *Foo, d *builtin.Deployment) (*builtin.Deployment, error) {
	want := newDeployment(foo)
	want.ResourceVersion = d.ResourceVersion
	applied, err := apiclient.NewTyped[builtin.Deployment](r.client).Apply(ctx, want, apiclient.WriteOptions{FieldManager: fieldManager, Force: true})
	if err != nil {
		return nil, fmt.Errorf("scale deployment %s for foo %s: %w", d.Name, foo.Name, err)
	}
	return applied, nil
}

// newDeployment is the Deployment a Foo asks for: nginx pods labelled for the
// Foo, as many as it says, controlled by it.
func newDeployment(foo *Foo) *builtin.Deployment {
	labels := map[string]string{"app": "nginx", "controller": foo.Name}
	d := &builtin.Deployment{ObjectMeta: controller.ChildOf(foo, foo.Spec.DeploymentName)}
	d.Labels = labels
	d.Spec.Replicas = foo.Spec.Replicas
	d.Spec.Selector = &builtin.LabelSelector{MatchLabels: labels}
	d.Spec.Template.Metadata.Labels = labels
	d.Spec.Template.Spec.Containers = []builtin.Container{{Name: "nginx", Image: "nginx:latest"}}
	return d
}
