package webhook_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/kubewire/kubewire/controller/crd"
	"github.com/kubewire/kubewire/controller/webhook"
)

// What kubewire manifests prints for the webhooks: the certificate's
// Secret, the configurations reaching the Service and trusting its CA, and
// each converted CRD's conversion.
func TestManifests_name_the_Service_and_trust_the_Secrets_CA(t *testing.T) {
	s := webhook.NewServer(nil, webhook.Options{Name: "sites", Service: &webhook.Service{Namespace: "ops", Name: "sites-webhooks"}})
	webhook.Validate(s, webhook.Hook{}, validateSite)
	webhook.Default(s, webhook.Hook{}, defaultSite)
	c := crd.MustNew(crd.Options{Storage: "v1"}, new(Site), new(SiteV2))
	webhook.Convert(s, c, webhook.Spoke(siteV1ToV2, siteV2ToV1))
	m, err := s.Manifests(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	ca := m.Secret.Data["ca.crt"]
	if got, want := m.Secret.Namespace+"/"+m.Secret.Name, "ops/sites-tls"; got != want {
		t.Errorf("the Secret is %s, want %s", got, want)
	}
	for _, hooks := range [][]webhook.Webhook{m.Validating.Webhooks, m.Mutating.Webhooks} {
		cc := hooks[0].ClientConfig
		if cc.Service == nil || cc.Service.Name != "sites-webhooks" || *cc.Service.Port != 443 || !bytes.Equal(cc.CABundle, ca) || cc.URL != "" {
			t.Errorf("%s: clientConfig %+v, want the Service and the Secret's CA", hooks[0].Name, cc)
		}
	}
	m.SetConversion(c)
	if conv := c.Spec.Conversion; conv == nil || conv.Strategy != "Webhook" || *conv.Webhook.ClientConfig.Service.Path != "/convert/sites.webhook-test.kubewire.io" {
		t.Errorf("the CRD's conversion: %+v", conv)
	}
	y, err := m.YAML()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Count(string(y), "\n---\n"), 2; got != want {
		t.Errorf("%d separators in the YAML, want %d:\n%s", got, want, y)
	}
	if _, err := webhook.NewServer(nil, webhook.Options{}).Manifests(time.Now()); err == nil {
		t.Error("Manifests without a Service: no error")
	}
}
