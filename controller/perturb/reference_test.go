package perturb_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/perturb"
)

// A reference whose last Reconcile of a key failed has not converged: its end
// state is no oracle, and the report says so instead of comparing perturbed
// executions with it. (The catalog example's apply was refused by the server
// on every Reconcile, and its reference served as the oracle all the same.)
func TestExplore_a_reference_that_does_not_converge_is_no_oracle(t *testing.T) {
	r := perturb.Explore(t, perturb.Spec{
		Setup: func(m *controller.Manager) error {
			_, err := controller.New(m, "refuser", controller.Options{}).For(configMaps).
				Complete(controller.ReconcilerFunc(func(context.Context, controller.Request) (controller.Result, error) {
					return controller.Result{}, errors.New("the server said no")
				}))
			return err
		},
		Manager:  controller.ManagerOptions{Namespace: "demo"},
		Workload: []perturb.Step{perturb.Create(configMaps, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"demo"}}`)},
	})
	if !strings.Contains(r.Reference, "its last Reconcile of demo/c failed") || r.Executions != 0 {
		t.Fatalf("reference %q after %d executions; want it refused for demo/c's failing Reconcile, and nothing explored:\n%s", r.Reference, r.Executions, r)
	}
	if r.Err() == nil {
		t.Fatal("Err() = nil for a reference that did not converge")
	}
}

// A Terminal error is an end state the controller chose — a spec it cannot
// act on, by design not retried — not a failure to converge: the reference
// is still the oracle, and the exploration runs.
func TestExplore_a_terminal_error_is_an_end_state(t *testing.T) {
	r := perturb.Explore(t, perturb.Spec{
		Setup: func(m *controller.Manager) error {
			_, err := controller.New(m, "refuser", controller.Options{}).For(configMaps).
				Complete(controller.ReconcilerFunc(func(context.Context, controller.Request) (controller.Result, error) {
					return controller.Result{}, controller.Terminal(errors.New("bad:image is no image"))
				}))
			return err
		},
		Manager:  controller.ManagerOptions{Namespace: "demo"},
		Workload: []perturb.Step{perturb.Create(configMaps, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"demo"}}`)},
	})
	if r.Reference != "" || r.Executions == 0 {
		t.Fatalf("reference %q after %d executions; want a terminal error taken as an end state:\n%s", r.Reference, r.Executions, r)
	}
}
