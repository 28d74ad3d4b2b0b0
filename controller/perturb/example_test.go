package perturb_test

import (
	"fmt"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/foo"
	"github.com/kubewire/kubewire/controller/perturb"
)

// The test to copy: explore your controller — here package foo's — under
// every perturbation, with a workload and an invariant of your own. Put it in
// a func TestXxx(t *testing.T) of your controller's package, and replace
// foo.Setup, the workload and the invariant with yours. A failure's report
// says which perturbation, what went wrong, and how to replay it.
func Example() {
	var t *testing.T // your test's
	r := perturb.Explore(t, perturb.Spec{
		Setup: func(m *controller.Manager) error {
			_, err := foo.Setup(m, foo.Options{})
			return err
		},
		Manager: controller.ManagerOptions{Namespace: "demo"},
		Workload: []perturb.Step{
			perturb.Create(foo.Foos, `{"apiVersion":"samplecontroller.k8s.io/v1alpha1","kind":"Foo",
				"metadata":{"name":"example","namespace":"demo"},"spec":{"deploymentName":"web","replicas":1}}`),
			perturb.Patch(foo.Foos, "demo/example", `{"spec":{"replicas":3}}`),
		},
		Invariants: []perturb.Invariant{{
			Name: "a Foo's Deployment is its own",
			Holds: func(s *perturb.State) error {
				if d := s.Get(apiclient.Deployments, "demo/web"); d != nil && len(d.Metadata.OwnerReferences) != 1 {
					return fmt.Errorf("deployment web has %d owners", len(d.Metadata.OwnerReferences))
				}
				return nil
			},
		}},
	})
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
}

// A perturbation's ID names it in a report and in a replay.
func ExampleParseID() {
	for _, id := range []string{"crash/3", "stale/3/deployments.apps@12", "coalesce/pods/default/web-1@7", "expire/5"} {
		p, _ := perturb.ParseID(id)
		fmt.Printf("%-8s write=%d event=%d %s %s v%d → %s\n", p.Kind, p.Write, p.Event, p.Coll, p.Key, p.Version, p.ID())
	}
	// Output:
	// crash    write=3 event=0   v0 → crash/3
	// stale    write=3 event=0 deployments.apps  v12 → stale/3/deployments.apps@12
	// coalesce write=0 event=0 pods default/web-1 v7 → coalesce/pods/default/web-1@7
	// expire   write=0 event=5   v0 → expire/5
}
