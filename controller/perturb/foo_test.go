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

// What Explore finds in Foo (testdata/foo.golden): nothing a crash, an API
// fault, a cut or expired watch or a coalesced state can do; after a crash,
// a process whose view of the Foos lags scales the Deployment back to a
// replica count the Foo no longer asks for, before its view catches up and it
// scales it forward again. The Foo's own status and the Deployment end as in
// the reference — the controller is level-based — but the flap is real: pods
// go and come back. The Manager's staleness guard (issue 31, on by default)
// does not prevent it: it makes a process wait for its caches to show that
// process's own writes, and the process started after the crash has written
// nothing yet.
func TestFoo_under_every_perturbation(t *testing.T) {
	r := perturb.Explore(t, fooSpec())
	if r.Reference != "" {
		t.Fatal(r)
	}
	for _, f := range r.Failures {
		if f.Perturbation.Kind != perturb.Stale {
			t.Errorf("%s: only stale views should trouble Foo:\n%s", f.Perturbation.ID(), r)
		}
	}
	golden.Check(t, "testdata/foo.golden", r.String())
}
