package perturb_test

import (
	"context"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/controller/perturb"
)

// echoer writes each ConfigMap's color into an annotation whenever its cache
// shows the two differ, and looks again every `every`, whatever happens: a
// resync. Under a lagging view its cache does not show its own write, so
// each resync writes again (an answer that changes nothing, but a write).
type echoer struct {
	client  *apiclient.Client
	configs *informer.Lister[configMap]
	every   time.Duration
}

func (r *echoer) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	c, err := r.configs.Get(req.Namespace, req.Name)
	if err != nil {
		return controller.Result{}, apiclient.IgnoreNotFound(err)
	}
	if c.Annotations["example.com/color"] != c.Data["color"] {
		patch := []byte(`{"metadata":{"annotations":{"example.com/color":"` + c.Data["color"] + `"}}}`)
		if _, err := r.client.Resource(configMaps).Namespace(req.Namespace).Patch(ctx, req.Name, apiclient.MergePatch, patch, apiclient.WriteOptions{}); err != nil {
			return controller.Result{}, err
		}
	}
	return controller.Result{RequeueAfter: r.every}, nil
}

func echoSpec(every time.Duration) perturb.Spec {
	return perturb.Spec{
		Setup: func(m *controller.Manager) error {
			r := &echoer{client: m.Client(), configs: controller.Lister[configMap](m), every: every}
			// The guard off: a turn it held back would keep the controller
			// from idleness by itself (a sent-back turn is not idle).
			_, err := controller.New(m, "echo", controller.Options{DisableStaleGuard: true}).For(configMaps).Complete(r)
			return err
		},
		Manager: controller.ManagerOptions{Namespace: "demo"},
		Workload: []perturb.Step{
			perturb.Create(configMaps, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"app","namespace":"demo"},"data":{"color":"blue"}}`),
			perturb.Patch(configMaps, "demo/app", `{"data":{"color":"green"}}`),
		},
		Kinds: []perturb.Kind{perturb.Stale},
	}
}

// A lag lifts on a clock of its own, Spec.Lag after the fresh process
// starts, whatever the controller does: one that resyncs (and writes) more
// often than Quiet, and so never goes quiet while its view lags, still sees
// the lag lift and the exploration end. (Tied to quiescence, the lag never
// lifted, and every stale execution was "not idle".)
func TestStale_a_lag_lifts_for_a_controller_that_resyncs_more_often_than_Quiet(t *testing.T) {
	r := perturb.Explore(t, echoSpec(3*time.Second))
	passes(t, r)
}

// One whose resync is longer than Quiet goes quiet first: the lag lifts
// then, and it is explored all the same.
func TestStale_a_lag_lifts_for_a_controller_that_resyncs_less_often_than_Quiet(t *testing.T) {
	r := perturb.Explore(t, echoSpec(30*time.Second))
	passes(t, r)
}
