package perturb_test

import (
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest/golden"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/perturb"
	"github.com/kubewire/kubewire/controller/podrestart"
)

// podrestart restarts the Deployment "tools" when a pod it saw Pending turns
// Running: edge-triggered by design, remembering what it saw in memory
// (package podrestart's doc says why most controllers are not).
func podrestartSpec() perturb.Spec {
	return perturb.Spec{
		Setup: func(m *controller.Manager) error {
			_, err := podrestart.Setup(m, podrestart.Options{})
			return err
		},
		Manager: controller.ManagerOptions{Namespace: "demo"},
		Workload: []perturb.Step{
			perturb.Create(apiclient.Deployments, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"tools","namespace":"demo"},"spec":{"replicas":1}}`),
			perturb.Create(pods, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-1","namespace":"demo","labels":{"app":"nginx"}},"status":{"phase":"Pending"}}`),
			perturb.PatchStatus(pods, "demo/web-1", `{"status":{"phase":"Running"}}`),
		},
	}
}

// What Explore finds in podrestart (testdata/podrestart.golden): the restart
// is lost when the pod turns Running while no process watches (Down, across
// the step that makes it Running), and when the Pending state is never seen
// (Coalesce: a relist shows a pod that is simply Running). That is right: a
// transition nobody saw is a transition that did not happen, for a
// controller that acts on transitions — the edge-triggered shape trades this
// loss for not having to write down what it saw.
func TestPodrestart_loses_the_restarts_it_was_told_of_only_as_transitions(t *testing.T) {
	r := perturb.Explore(t, podrestartSpec())
	if r.Reference != "" {
		t.Fatal(r)
	}
	kinds := map[perturb.Kind]bool{}
	for _, f := range r.Failures {
		kinds[f.Perturbation.Kind] = true
	}
	if !kinds[perturb.Down] || !kinds[perturb.Coalesce] {
		t.Errorf("want the restart lost across a Down and a Coalesce:\n%s", r)
	}
	golden.Check(t, "testdata/podrestart.golden", r.String())
}
