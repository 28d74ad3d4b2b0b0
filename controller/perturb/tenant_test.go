package perturb_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/controller/perturb"
	"github.com/kubewire/kubewire/controller/status"
)

// A Tenant gets a quota, a ConfigMap "<tenant>-quota" the controller creates,
// and a status that says it is ready once the quota is there.
//
// The bug: a create that fails with AlreadyExists is taken to mean "someone
// else's object is in the way", and the Tenant is given up on (a terminal
// error) — never mind that the object may be the controller's own. A create
// whose answer was lost (a 504 from a proxy, a timeout: the write was made)
// is retried, meets its own ConfigMap, and the Tenant is never ready. The fix
// reads what is in the way and adopts it when it is the Tenant's own (its
// controller reference says so).

var tenants = custom("tenants", "Tenant")

type tenant struct {
	apiclient.TypeMeta
	apiclient.ObjectMeta `json:"metadata"`
	Status               struct {
		Ready bool `json:"ready,omitempty"`
	} `json:"status"`
}

func (*tenant) Resource() apiclient.Resource { return tenants }

type quotas struct {
	client  *apiclient.Client
	tenants *informer.Lister[tenant]
	fixed   bool
}

// Reconcile makes the quota once: the status says when that is done.
func (r *quotas) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	t, err := r.tenants.Get(req.Namespace, req.Name)
	if err != nil || t.Status.Ready {
		return controller.Result{}, apiclient.IgnoreNotFound(err)
	}
	name := t.Name + "-quota"
	q := &configMap{ObjectMeta: controller.ChildOf(t, name), Data: map[string]string{"cpu": "4", "memory": "8Gi"}}
	_, err = apiclient.NewTyped[configMap](r.client).Create(ctx, q, apiclient.WriteOptions{})
	if apiclient.IsAlreadyExists(err) {
		if !r.fixed {
			return controller.Result{}, controller.Terminal(fmt.Errorf("quota %s exists and is not ours", name))
		}
		have, err := apiclient.NewTyped[configMap](r.client).Namespace(t.Namespace).Get(ctx, name)
		if err != nil {
			return controller.Result{}, err
		}
		if !controller.IsControlledBy(&have.ObjectMeta, t) {
			return controller.Result{}, controller.Terminal(fmt.Errorf("quota %s exists and is not ours", name))
		}
	} else if err != nil {
		return controller.Result{}, err
	}
	_, err = status.Update(ctx, r.client, t, map[string]any{"ready": true})
	return controller.Result{}, err
}

func quotaSpec(fixed bool) perturb.Spec {
	return perturb.Spec{
		Setup: func(m *controller.Manager) error {
			r := &quotas{client: m.Client(), tenants: controller.Lister[tenant](m), fixed: fixed}
			_, err := controller.New(m, "tenants", controller.Options{}).
				For(tenants, controller.WithPredicates(controller.GenerationChanged)).Owns(configMaps).Complete(r)
			return err
		},
		Manager: controller.ManagerOptions{Namespace: "tenants"},
		Workload: []perturb.Step{
			perturb.Create(tenants, `{"apiVersion":"example.com/v1","kind":"Tenant","metadata":{"name":"acme","namespace":"tenants"}}`),
			perturb.Create(tenants, `{"apiVersion":"example.com/v1","kind":"Tenant","metadata":{"name":"globex","namespace":"tenants"}}`),
		},
	}
}

func TestQuota_gives_up_on_a_tenant_when_its_own_create_comes_back_as_AlreadyExists(t *testing.T) {
	found(t, perturb.Explore(t, quotaSpec(false)), perturb.Timeout, "quota")
}

func TestQuota_fixed_adopts_what_is_its_own(t *testing.T) {
	passes(t, perturb.Explore(t, quotaSpec(true)))
}
