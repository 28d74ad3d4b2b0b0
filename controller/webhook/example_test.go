package webhook_test

import (
	"context"
	"errors"
	"net/http"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/kubeconfig"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/crd"
	"github.com/kubewire/kubewire/controller/webhook"
)

// An operator with a validating and a mutating webhook for Site, and a CRD
// of two versions converted through v2: everything a user writes beside
// the types and the two conversion functions (siteV1ToV2, siteV2ToV1 in
// helpers_test.go). It needs a cluster, so it has no output.
func ExampleNew() {
	ctx := context.Background()
	cfg, _ := kubeconfig.Load(kubeconfig.Options{}) // $KUBECONFIG, ~/.kube/config, or in-cluster
	client, _ := apiclient.New(cfg, apiclient.Options{})
	sites := crd.MustNew(crd.Options{Storage: "v1"}, new(Site), new(SiteV2))
	_ = crd.Install(ctx, client, sites, crd.InstallOptions{})
	m, _ := controller.NewManager(client, controller.ManagerOptions{MetricsAddr: "0.0.0.0:8080"})

	hooks := webhook.New(m, webhook.Options{Addr: "0.0.0.0:9443", Name: "sites",
		Service: &webhook.Service{Namespace: "ops", Name: "sites-webhooks"}})
	webhook.Validate(hooks, webhook.Hook{}, func(ctx context.Context, r *webhook.Review[Site]) error {
		if r.Object.Spec.Replicas > 10 {
			return webhook.Refuse(http.StatusUnprocessableEntity, "replicas %d is over 10", r.Object.Spec.Replicas)
		}
		if r.OldObject != nil && r.OldObject.Spec.Tier != r.Object.Spec.Tier {
			return errors.New("spec.tier cannot change")
		}
		return nil
	})
	webhook.Default(hooks, webhook.Hook{}, func(ctx context.Context, r *webhook.Review[Site]) error {
		if r.Object.Spec.Image == "" {
			r.Object.Spec.Image = "nginx:1.27"
		}
		return nil
	})
	webhook.Convert(hooks, sites, webhook.Spoke(siteV1ToV2, siteV2ToV1))
	_ = m.Run(ctx) // serves the webhooks on every replica, its CA kept in the Secret ops/sites-tls
}
