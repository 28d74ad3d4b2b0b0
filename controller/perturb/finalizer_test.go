package perturb_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/finalizer"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/controller/perturb"
)

// A Bucket is listed in a registry, one key per bucket in the ConfigMap
// "registry", for as long as it exists; a finalizer makes sure the key goes
// when the Bucket does.
//
// The bug: on deletion the controller removes its finalizer first — "so that
// the deletion is not held up" — and then the registry key. A crash between
// the two writes, and the Bucket is gone: no event the next process can get
// will ever bring it back, and the key stays forever. The fix cleans up
// first and lets the object go last (finalizer.Reconcile's order): a crash in
// between runs the clean-up again, which must be idempotent.
//
// That first fix still leaked, and Explore said how: after a crash right
// after the finalizer went, a process whose cache lags sees the Bucket as it
// was before it was deleted, and registers it again; the deletion that
// follows in its cache finds no object to clean up for. So the fix also
// registers only a Bucket the API server confirms is there and not being
// deleted (a GET is never served stale).

var buckets = custom("buckets", "Bucket")

const registryFinalizer = "example.com/registry"

type bucket struct {
	apiclient.TypeMeta
	apiclient.ObjectMeta `json:"metadata"`
}

func (*bucket) Resource() apiclient.Resource { return buckets }

type registrar struct {
	client  *apiclient.Client
	buckets *informer.Lister[bucket]
	fixed   bool
}

func (r *registrar) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	b, err := r.buckets.Get(req.Namespace, req.Name)
	if err != nil {
		return controller.Result{}, apiclient.IgnoreNotFound(err)
	}
	register := func(ctx context.Context) (controller.Result, error) {
		if r.fixed {
			live, err := apiclient.NewTyped[bucket](r.client).Namespace(b.Namespace).Get(ctx, b.Name)
			if err != nil || live.DeletionTimestamp != nil {
				return controller.Result{}, apiclient.IgnoreNotFound(err) // gone, or going: nothing to register
			}
		}
		return controller.Result{}, r.set(ctx, b, fmt.Sprintf("%q", "s3://"+b.Name))
	}
	unregister := func(ctx context.Context) error { return r.set(ctx, b, "null") }
	if r.fixed {
		return finalizer.Reconcile(ctx, r.client, b, registryFinalizer, register, unregister)
	}
	if b.DeletionTimestamp == nil {
		if err := finalizer.Add(ctx, r.client, b, registryFinalizer); err != nil {
			return controller.Result{}, err
		}
		return register(ctx)
	}
	// Being deleted: let it go, then clean up.
	if err := finalizer.Remove(ctx, r.client, b, registryFinalizer); err != nil {
		return controller.Result{}, err
	}
	return controller.Result{}, unregister(ctx)
}

// set writes the bucket's key in the registry (value is JSON; null removes
// it), making the registry first if there is none.
func (r *registrar) set(ctx context.Context, b *bucket, value string) error {
	registry := r.client.Resource(configMaps).Namespace(b.Namespace)
	patch := fmt.Appendf(nil, `{"data":{%q:%s}}`, b.Name, value)
	_, err := registry.Patch(ctx, "registry", apiclient.MergePatch, patch, apiclient.WriteOptions{})
	if apiclient.IsNotFound(err) && value != "null" {
		_, err = registry.Create(ctx, fmt.Appendf(nil, `{"metadata":{"name":"registry"},"data":{%q:%s}}`, b.Name, value), apiclient.WriteOptions{})
	}
	return apiclient.IgnoreNotFound(err)
}

func registrarSpec(fixed bool) perturb.Spec {
	return perturb.Spec{
		Setup: func(m *controller.Manager) error {
			r := &registrar{client: m.Client(), buckets: controller.Lister[bucket](m), fixed: fixed}
			_, err := controller.New(m, "buckets", controller.Options{}).For(buckets).Complete(r)
			return err
		},
		Manager: controller.ManagerOptions{Namespace: "media"},
		Workload: []perturb.Step{
			perturb.Create(buckets, `{"apiVersion":"example.com/v1","kind":"Bucket","metadata":{"name":"photos","namespace":"media"}}`),
			perturb.Create(buckets, `{"apiVersion":"example.com/v1","kind":"Bucket","metadata":{"name":"videos","namespace":"media"}}`),
			perturb.Delete(buckets, "media/photos"),
		},
	}
}

func TestRegistrar_leaks_a_key_when_it_crashes_between_its_finalizer_and_its_clean_up(t *testing.T) {
	found(t, perturb.Explore(t, registrarSpec(false)), perturb.Crash, "registrar")
}

func TestRegistrar_fixed_cleans_up_before_it_lets_the_bucket_go(t *testing.T) {
	passes(t, perturb.Explore(t, registrarSpec(true)))
}
