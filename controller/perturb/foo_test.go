package perturb_test

import (
	"fmt"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest/golden"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/foo"
	"github.com/kubewire/kubewire/controller/perturb"
)

// fooSpec is package foo's controller, explored with a five-step workload: a
// Foo created, its Deployment reporting available replicas as the Deployment
// controller would, the Foo scaled, the Deployment reporting again, the Foo
// deleted.
func fooSpec() perturb.Spec {
	return perturb.Spec{
		Setup: func(m *controller.Manager) error {
			_, err := foo.Setup(m, foo.Options{})
			return err
		},
		Manager: controller.ManagerOptions{Namespace: "demo"},
		Workload: []perturb.Step{
			perturb.Create(foo.Foos, `{"apiVersion":"samplecontroller.k8s.io/v1alpha1","kind":"Foo","metadata":{"name":"example","namespace":"demo"},"spec":{"deploymentName":"web","replicas":1}}`),
			perturb.PatchStatus(apiclient.Deployments, "demo/web", `{"status":{"availableReplicas":1}}`),
			perturb.Patch(foo.Foos, "demo/example", `{"spec":{"replicas":3}}`),
			perturb.PatchStatus(apiclient.Deployments, "demo/web", `{"status":{"availableReplicas":3}}`),
			perturb.Delete(foo.Foos, "demo/example"),
		},
		Invariants: []perturb.Invariant{{
			Name: "a Deployment is only ever scaled to what its Foo asks",
			Holds: func(s *perturb.State) error {
				d := s.Get(apiclient.Deployments, "demo/web")
				before := s.Before().Get(apiclient.Deployments, "demo/web")
				f := s.Get(foo.Foos, "demo/example")
				if d == nil || before == nil || f == nil {
					return nil
				}
				now, _ := d.Field("spec", "replicas")
				was, _ := before.Field("spec", "replicas")
				want, _ := f.Field("spec", "replicas")
				if fmt.Sprint(now) != fmt.Sprint(was) && fmt.Sprint(now) != fmt.Sprint(want) {
					return fmt.Errorf("deployment web scaled from %v to %v, its Foo asks for %v", was, now, want)
				}
				return nil
			},
		}},
	}
}

// What Explore finds in Foo (testdata/foo.golden): nothing. Before issue 38
// it found a flap after a crash: a process whose view of the Foos lagged
// scaled the Deployment back to a replica count the Foo no longer asked for,
// before its view caught up and it scaled it forward again. That view came
// from the first list, which asked for resourceVersion "0" — any state a
// lagging API server's watch cache holds. The Reflectors now ask a 1.33+
// server for the latest state (listwatch, "the first LIST"), a read no
// server serves stale, and the perturbation after a crash can only hold the
// fresh process's watch back, which Foo gets through.
func TestFoo_under_every_perturbation(t *testing.T) {
	r := perturb.Explore(t, fooSpec())
	if err := r.Err(); err != nil {
		t.Error(err)
	}
	golden.Check(t, "testdata/foo.golden", r.String())
}

// With the first list forced back to resourceVersion "0"
// (Spec.FirstListAtZero, listwatch.Options.FirstListAtZero), the flap is
// there again (testdata/foo-at-zero.golden): the Foo's status and the
// Deployment end as in the reference — the controller is level-based — but
// pods go and come back. The Manager's staleness guard does not prevent it:
// it makes a process wait for its caches to show that process's own writes,
// and the process started after the crash has written nothing yet.
func TestFoo_flaps_after_a_restart_when_its_first_list_is_at_zero(t *testing.T) {
	spec := fooSpec()
	spec.FirstListAtZero = true
	r := perturb.Explore(t, spec)
	if r.Reference != "" {
		t.Fatal(r)
	}
	if len(r.Failures) == 0 {
		t.Fatalf("no flap found with the first list at 0:\n%s", r)
	}
	for _, f := range r.Failures {
		if f.Perturbation.Kind != perturb.Stale {
			t.Errorf("%s: only stale views should trouble Foo:\n%s", f.Perturbation.ID(), r)
		}
	}
	golden.Check(t, "testdata/foo-at-zero.golden", r.String())
}
