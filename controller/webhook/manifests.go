package webhook

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/kubewire/kubewire/apiclient/builtin"
	"github.com/kubewire/kubewire/controller/crd"
	"gopkg.in/yaml.v3"
)

// Manifests are what a cluster needs, beside the CRDs and the Deployment, to
// call a Server's webhooks: the certificate's Secret and the configurations
// that trust its CA. Applied ahead of the Deployment (kubewire manifests),
// they are what the Server finds at its start: it reads the Secret and
// applies the same configurations again (or, with Options.NoInstall, applies
// nothing).
type Manifests struct {
	Secret     *builtin.Secret
	Validating *ValidatingWebhookConfiguration // nil: no validating webhook
	Mutating   *MutatingWebhookConfiguration   // nil: no mutating webhook
	// Conversions is the spec.conversion of each CRD given to Convert, by
	// CRD name: SetConversion puts it in the CRD's manifest.
	Conversions map[string]*crd.Conversion
}

// Manifests makes a new CA and serving certificate for the Server's
// Service (Options.Service is required: in a cluster the API server reaches
// the webhooks through it), and returns them with the configurations that
// trust it. Each call makes a new CA: print the manifests once and keep
// them, or the Secret in the cluster and the caBundle printed will differ.
func (s *Server) Manifests(now time.Time) (Manifests, error) {
	if s.opts.Service == nil {
		return Manifests{}, errors.New("webhook: Manifests needs Options.Service, the Service in front of the webhook server")
	}
	secret, err := NewCertificateSecret(s.opts.SecretNamespace, s.opts.Name+"-tls", s.hosts(""), now)
	if err != nil {
		return Manifests{}, err
	}
	ca := secret.Data["ca.crt"]
	v, m := s.Configurations(ca)
	return Manifests{Secret: secret, Validating: v, Mutating: m, Conversions: s.ConversionOf(ca)}, nil
}

// SetConversion sets c's spec.conversion when the Server converts c.
func (m Manifests) SetConversion(c *crd.CustomResourceDefinition) {
	if conv, ok := m.Conversions[c.Name]; ok {
		c.Spec.Conversion = conv
	}
}

// Objects are the Secret and the configurations, in the order to apply them:
// what manifests.Webhooks.Objects takes.
func (m Manifests) Objects() []any {
	out := []any{m.Secret}
	if m.Validating != nil {
		out = append(out, m.Validating)
	}
	if m.Mutating != nil {
		out = append(out, m.Mutating)
	}
	return out
}

// YAML is Objects as one YAML stream, documents separated by "---".
func (m Manifests) YAML() ([]byte, error) {
	var out []byte
	for i, obj := range m.Objects() {
		body, err := json.Marshal(obj)
		if err != nil {
			return nil, err
		}
		var tree any
		if err := json.Unmarshal(body, &tree); err != nil {
			return nil, err
		}
		doc, err := yaml.Marshal(tree)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			out = append(out, "---\n"...)
		}
		out = append(out, doc...)
	}
	return out, nil
}
