package perturb_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/controller/perturb"
)

var secrets = apiclient.Resource{Version: "v1", Name: "secrets", Kind: "Secret", Namespaced: true}

type secret struct {
	apiclient.TypeMeta
	apiclient.ObjectMeta `json:"metadata"`
	StringData           map[string]string `json:"stringData,omitempty"`
}

func (*secret) Resource() apiclient.Resource { return secrets }

// stamper makes a Secret "<name>-token" for each ConfigMap, and once its
// cache of Secrets shows it, marks the ConfigMap done. Nothing but its own
// requeue brings the second turn: the Secrets are cached, not watched for.
type stamper struct {
	client  *apiclient.Client
	secrets *informer.Lister[secret]
}

func (r *stamper) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	if _, err := r.secrets.Get(req.Namespace, req.Name+"-token"); apiclient.IsNotFound(err) {
		s := &secret{ObjectMeta: apiclient.ObjectMeta{Name: req.Name + "-token", Namespace: req.Namespace}}
		if _, err := apiclient.NewTyped[secret](r.client).Create(ctx, s, apiclient.WriteOptions{}); err != nil && !apiclient.IsAlreadyExists(err) {
			return controller.Result{}, err
		}
		return controller.Result{RequeueAfter: time.Millisecond}, nil
	}
	_, err := r.client.Resource(configMaps).Namespace(req.Namespace).Patch(ctx, req.Name, apiclient.MergePatch,
		[]byte(`{"metadata":{"annotations":{"example.com/done":"true"}}}`), apiclient.WriteOptions{})
	return controller.Result{}, err
}

// A turn the staleness guard sends back is still to come: the controller is
// not idle while it waits, and the workload does not move on. (It did: with
// Quiet shorter than the guard's next try, the driver took the wait for
// idleness, and the property below failed after step 1.)
func TestExplore_a_turn_the_staleness_guard_sent_back_is_not_idle(t *testing.T) {
	r := perturb.Explore(t, perturb.Spec{
		Setup: func(m *controller.Manager) error {
			r := &stamper{client: m.Client(), secrets: controller.Lister[secret](m)}
			_, err := controller.New(m, "stamper", controller.Options{}).For(configMaps).Complete(r)
			return err
		},
		Manager: controller.ManagerOptions{Namespace: "demo"},
		Workload: []perturb.Step{
			perturb.Create(configMaps, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"app","namespace":"demo"}}`),
			perturb.Create(configMaps, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"web","namespace":"demo"}}`),
		},
		Eventually: []perturb.Invariant{{Name: "every ConfigMap is marked done", Holds: func(s *perturb.State) error {
			for _, c := range s.List(configMaps) {
				if c.Metadata.Annotations["example.com/done"] != "true" {
					return errors.New(c.Key() + " is not done")
				}
			}
			return nil
		}}},
		Kinds: []perturb.Kind{perturb.Late},
		Quiet: 3 * time.Millisecond,
	})
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if r.Executions == 0 {
		t.Fatalf("nothing explored:\n%s", r)
	}
}
