package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/builtin"
	"github.com/kubewire/kubewire/controller/crd"
)

// The webhook configurations (admissionregistration.k8s.io/v1): the fields a
// kubewire webhook sets.
var (
	ValidatingWebhookConfigurations = apiclient.Resource{Group: "admissionregistration.k8s.io", Version: "v1", Name: "validatingwebhookconfigurations", Singular: "validatingwebhookconfiguration", Kind: "ValidatingWebhookConfiguration"}
	MutatingWebhookConfigurations   = apiclient.Resource{Group: "admissionregistration.k8s.io", Version: "v1", Name: "mutatingwebhookconfigurations", Singular: "mutatingwebhookconfiguration", Kind: "MutatingWebhookConfiguration"}
)

// ValidatingWebhookConfiguration lists validating webhooks.
type ValidatingWebhookConfiguration struct {
	apiclient.TypeMeta
	apiclient.ObjectMeta `json:"metadata"`
	Webhooks             []Webhook `json:"webhooks,omitempty"`
}

// Resource is ValidatingWebhookConfigurations.
func (*ValidatingWebhookConfiguration) Resource() apiclient.Resource {
	return ValidatingWebhookConfigurations
}

// MutatingWebhookConfiguration lists mutating webhooks.
type MutatingWebhookConfiguration struct {
	apiclient.TypeMeta
	apiclient.ObjectMeta `json:"metadata"`
	Webhooks             []Webhook `json:"webhooks,omitempty"`
}

// Resource is MutatingWebhookConfigurations.
func (*MutatingWebhookConfiguration) Resource() apiclient.Resource {
	return MutatingWebhookConfigurations
}

// Webhook is one webhook of a configuration.
type Webhook struct {
	Name                    string                 `json:"name"`
	ClientConfig            crd.ClientConfig       `json:"clientConfig"`
	Rules                   []Rule                 `json:"rules"`
	FailurePolicy           FailurePolicy          `json:"failurePolicy,omitempty"`
	MatchPolicy             string                 `json:"matchPolicy,omitempty"`
	NamespaceSelector       *builtin.LabelSelector `json:"namespaceSelector,omitempty"`
	ObjectSelector          *builtin.LabelSelector `json:"objectSelector,omitempty"`
	SideEffects             string                 `json:"sideEffects"`
	TimeoutSeconds          int32                  `json:"timeoutSeconds,omitempty"`
	AdmissionReviewVersions []string               `json:"admissionReviewVersions"`
	// ReinvocationPolicy is a mutating webhook's: "IfNeeded" calls it again
	// when a later webhook changed the object.
	ReinvocationPolicy string `json:"reinvocationPolicy,omitempty"`
}

// Rule names the writes a webhook is sent.
type Rule struct {
	Operations  []Operation `json:"operations"`
	APIGroups   []string    `json:"apiGroups"`
	APIVersions []string    `json:"apiVersions"`
	Resources   []string    `json:"resources"`
	Scope       string      `json:"scope,omitempty"` // "Cluster", "Namespaced" or "*"
}

// Configurations are the webhook configurations of the Server's admission
// webhooks, with caBundle and the Server's Service or URL: nil where it has
// no webhook of the kind. Run applies them; Manifests returns them.
func (s *Server) Configurations(caBundle []byte) (*ValidatingWebhookConfiguration, *MutatingWebhookConfiguration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var v *ValidatingWebhookConfiguration
	var m *MutatingWebhookConfiguration
	meta := apiclient.ObjectMeta{Name: s.opts.Name, Labels: map[string]string{"app.kubernetes.io/managed-by": "kubewire"}}
	for _, a := range s.admissions {
		hook := Webhook{
			Name: a.hook.Name, ClientConfig: s.clientConfig(a.path, caBundle),
			Rules:         []Rule{{Operations: a.hook.Operations, APIGroups: []string{a.res.Group}, APIVersions: []string{a.res.Version}, Resources: []string{a.res.Name}, Scope: "*"}},
			FailurePolicy: a.hook.FailurePolicy, MatchPolicy: "Equivalent",
			NamespaceSelector: a.hook.NamespaceSelector, ObjectSelector: a.hook.ObjectSelector,
			SideEffects: "None", TimeoutSeconds: a.hook.TimeoutSeconds, AdmissionReviewVersions: []string{"v1"},
		}
		if a.mutating {
			if m == nil {
				m = &MutatingWebhookConfiguration{TypeMeta: apiclient.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingWebhookConfiguration"}, ObjectMeta: meta.DeepCopy()}
			}
			hook.ReinvocationPolicy = "Never"
			m.Webhooks = append(m.Webhooks, hook)
			continue
		}
		if v == nil {
			v = &ValidatingWebhookConfiguration{TypeMeta: apiclient.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration"}, ObjectMeta: meta.DeepCopy()}
		}
		v.Webhooks = append(v.Webhooks, hook)
	}
	return v, m
}

// ConversionOf is the spec.conversion of each CRD given to Convert, with
// caBundle and the Server's Service or URL, by CRD name.
func (s *Server) ConversionOf(caBundle []byte) map[string]*crd.Conversion {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]*crd.Conversion{}
	for _, c := range s.conversions {
		cc := s.clientConfig(c.path, caBundle)
		out[c.crd.Name] = &crd.Conversion{Strategy: "Webhook", Webhook: &crd.WebhookConversion{ClientConfig: &cc, ConversionReviewVersions: []string{"v1"}}}
	}
	return out
}

// clientConfig reaches path on the Server: through the Service, or at its
// URL. Called with mu held.
func (s *Server) clientConfig(path string, caBundle []byte) crd.ClientConfig {
	if svc := s.opts.Service; svc != nil {
		port := svc.Port
		if port == 0 {
			port = 443
		}
		return crd.ClientConfig{Service: &crd.ServiceReference{Namespace: svc.Namespace, Name: svc.Name, Path: &path, Port: &port}, CABundle: caBundle}
	}
	base := s.opts.URL
	if base == "" {
		base = s.url
	}
	return crd.ClientConfig{URL: strings.TrimSuffix(base, "/") + path, CABundle: caBundle}
}

// install applies the configurations (forced server-side apply: the Server
// owns them) and sets each converted CRD's spec.conversion (a merge patch:
// the CRD itself is crd.Install's).
func (s *Server) install(ctx context.Context) error {
	s.mu.Lock()
	ca := s.caBundle
	s.mu.Unlock()
	opts := apiclient.WriteOptions{FieldManager: s.opts.FieldManager, Force: true}
	v, m := s.Configurations(ca)
	if v != nil {
		if _, err := s.client.Resource(ValidatingWebhookConfigurations).Apply(ctx, v, opts); err != nil {
			return fmt.Errorf("apply %s: %w", v.Name, err)
		}
	}
	if m != nil {
		if _, err := s.client.Resource(MutatingWebhookConfigurations).Apply(ctx, m, opts); err != nil {
			return fmt.Errorf("apply %s: %w", m.Name, err)
		}
	}
	for name, conv := range s.ConversionOf(ca) {
		patch, _ := json.Marshal(map[string]any{"spec": map[string]any{"conversion": conv}})
		if _, err := s.client.Resource(apiclient.CRDs).Patch(ctx, name, apiclient.MergePatch, patch, apiclient.WriteOptions{FieldManager: s.opts.FieldManager}); err != nil {
			return fmt.Errorf("set the conversion of crd %s: %w", name, err)
		}
	}
	return nil
}

// Uninstall undoes what Run applied: it deletes the configurations and sets
// each converted CRD's conversion back to None (its objects stay readable,
// in the version stored). A webhook configuration whose failurePolicy is
// Fail refuses every write it names while its server is down: a test, or an
// operator removed for good, calls this.
func (s *Server) Uninstall(ctx context.Context) error {
	var errs []error
	for _, res := range []apiclient.Resource{ValidatingWebhookConfigurations, MutatingWebhookConfigurations} {
		if err := s.client.Resource(res).Delete(ctx, s.opts.Name, apiclient.DeleteOptions{}); err != nil && !apiclient.IsNotFound(err) {
			errs = append(errs, err)
		}
	}
	for name := range s.ConversionOf(nil) {
		patch := []byte(`{"spec":{"conversion":{"strategy":"None","webhook":null}}}`)
		if _, err := s.client.Resource(apiclient.CRDs).Patch(ctx, name, apiclient.MergePatch, patch, apiclient.WriteOptions{FieldManager: s.opts.FieldManager}); err != nil && !apiclient.IsNotFound(err) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
