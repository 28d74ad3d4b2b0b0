package perturb_test

import (
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/foo"
	"github.com/kubewire/kubewire/controller/perturb"
)

func TestFoo_smoke(t *testing.T) {
	r := perturb.Explore(t, perturb.Spec{
		Setup:   func(m *controller.Manager) error { _, err := foo.Setup(m, foo.Options{}); return err },
		Manager: controller.ManagerOptions{Namespace: "demo"},
		Workload: []perturb.Step{
			perturb.Create(foo.Foos, `{"apiVersion":"samplecontroller.k8s.io/v1alpha1","kind":"Foo","metadata":{"name":"example","namespace":"demo"},"spec":{"deploymentName":"web","replicas":1}}`),
			perturb.Patch(foo.Foos, "demo/example", `{"spec":{"replicas":3}}`),
			perturb.PatchStatus(apiclient.Deployments, "demo/web", `{"status":{"availableReplicas":3}}`),
		},
	})
	t.Log(r)
}
