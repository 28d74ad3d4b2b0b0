package apitest

import (
	"bytes"
	"context"
	cryptorand "crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kubewire/kubewire/apiclient"
)

// The admission chain: the webhooks the stored MutatingWebhookConfigurations
// and ValidatingWebhookConfigurations (admissionregistration.k8s.io/v1) name,
// called as kube-apiserver calls them (its admission/plugin/webhook):
//
//  1. A write (create, update, every patch, apply) is first sent to each
//     mutating webhook that matches it, configurations by name and webhooks
//     in their order, and each one's JSON patch is applied before the next
//     is asked. A delete is sent too (its patch changes nothing).
//  2. Then what apitest does of its own (strategy, managedFields, checks).
//  3. Then each validating webhook that matches.
//
// A webhook matches when a rule names the operation, group, version,
// resource (or "resource/subresource", "*", "*/*", "*/status") and scope,
// its namespaceSelector the namespace's labels (a namespace's own
// kubernetes.io/metadata.name among them, which the real server sets and
// apitest adds where it matches; an object's namespace that apitest does
// not hold has that label alone) and its objectSelector the object's labels
// or the old object's. matchPolicy is Exact whatever it says: a rule for
// another version of the resource does not match.
//
// The webhooks are called with l.mu held, like the rest of the write: a
// webhook that itself reads this server waits until its timeout.

// admissionWebhook is one webhook of a configuration, what apitest reads.
type admissionWebhook struct {
	Name         string `json:"name"`
	ClientConfig struct {
		URL      *string         `json:"url"`
		Service  json.RawMessage `json:"service"`
		CABundle []byte          `json:"caBundle"`
	} `json:"clientConfig"`
	Rules             []admissionRule `json:"rules"`
	FailurePolicy     string          `json:"failurePolicy"`
	NamespaceSelector *labelSelector  `json:"namespaceSelector"`
	ObjectSelector    *labelSelector  `json:"objectSelector"`
	SideEffects       string          `json:"sideEffects"`
	TimeoutSeconds    *int64          `json:"timeoutSeconds"`
}

// admissionRule is one of a webhook's rules: what it is asked about.
type admissionRule struct {
	Operations  []string `json:"operations"`
	APIGroups   []string `json:"apiGroups"`
	APIVersions []string `json:"apiVersions"`
	Resources   []string `json:"resources"`
	Scope       string   `json:"scope"`
}

// labelSelector is a metav1.LabelSelector; nil or empty selects everything.
type labelSelector struct {
	MatchLabels      map[string]string `json:"matchLabels"`
	MatchExpressions []struct {
		Key      string   `json:"key"`
		Operator string   `json:"operator"`
		Values   []string `json:"values"`
	} `json:"matchExpressions"`
}

// admissionAttrs is the write a review asks about.
type admissionAttrs struct {
	op       string // CREATE, UPDATE, DELETE
	t        target
	obj, old object // obj nil on DELETE, old nil on CREATE
}

const (
	mutatingConfigs   = "mutatingwebhookconfigurations.admissionregistration.k8s.io"
	validatingConfigs = "validatingwebhookconfigurations.admissionregistration.k8s.io"
)

// mutate sends a to every mutating webhook that matches, in order, and
// returns the object with each one's patch applied. Called with l.mu held.
func (l *liveState) mutate(a admissionAttrs) (object, error) {
	for _, h := range l.webhooks(mutatingConfigs, a) {
		resp, err := l.call(h, a)
		if err != nil {
			if err == errIgnored {
				continue
			}
			return nil, err
		}
		if len(resp.Patch) == 0 || a.obj == nil {
			continue
		}
		if resp.PatchType != "JSONPatch" {
			return nil, fail(http.StatusInternalServerError, "failed calling webhook %q: unsupported patch type %q", h.Name, resp.PatchType)
		}
		var ops []any
		if err := decodeJSON(resp.Patch, &ops); err != nil {
			return nil, internalError("failed calling webhook %q: the patch: %v", h.Name, err)
		}
		patched := deepCopy(a.obj)
		if err := applyJSONPatch(patched, ops); err != nil {
			return nil, internalError("JSON Patch: %v", err)
		}
		a.obj = patched
	}
	return a.obj, nil
}

// validate sends a to every validating webhook that matches. Called with
// l.mu held.
func (l *liveState) validate(a admissionAttrs) error {
	for _, h := range l.webhooks(validatingConfigs, a) {
		if _, err := l.call(h, a); err != nil && err != errIgnored {
			return err
		}
	}
	return nil
}

// webhooks are the webhooks of coll's configurations that match a:
// configurations by name, each one's webhooks in order.
func (l *liveState) webhooks(coll string, a admissionAttrs) []admissionWebhook {
	configs := l.objects[coll]
	var out []admissionWebhook
	for _, k := range sortedKeys(configs) {
		var c struct {
			Webhooks []admissionWebhook `json:"webhooks"`
		}
		if json.Unmarshal(marshal(configs[k]), &c) != nil {
			continue
		}
		for _, h := range c.Webhooks {
			if l.matches(h, a) {
				out = append(out, h)
			}
		}
	}
	return out
}

// matches reports whether h is to be asked about a: a rule, the namespace
// selector and the object selector.
func (l *liveState) matches(h admissionWebhook, a admissionAttrs) bool {
	t := a.t
	if t.group == "admissionregistration.k8s.io" {
		// kube-apiserver asks no webhook about the configurations of
		// admission: a webhook could otherwise lock itself in.
		return false
	}
	ruled := slices.ContainsFunc(h.Rules, func(r admissionRule) bool {
		scoped := r.Scope == "" || r.Scope == "*" || (r.Scope == "Namespaced") == (t.namespace != "")
		return scoped && anyOf(r.Operations, a.op) && anyOf(r.APIGroups, t.group) && anyOf(r.APIVersions, t.version) &&
			slices.ContainsFunc(r.Resources, func(res string) bool {
				name, sub, _ := strings.Cut(res, "/")
				return (name == "*" || name == t.resource) && (sub == "*" || sub == t.sub)
			})
	})
	if !ruled {
		return false
	}
	if !h.NamespaceSelector.empty() {
		var labels map[string]string
		switch {
		case t.group == "" && t.resource == "namespaces" && t.sub == "":
			labels = labelsOf(a.current())
			labels["kubernetes.io/metadata.name"] = t.name
		case t.namespace != "":
			labels = map[string]string{}
			if ns, ok := l.objects["namespaces"][t.namespace]; ok {
				labels = labelsOf(ns)
			}
			labels["kubernetes.io/metadata.name"] = t.namespace
		}
		// A cluster-scoped object other than a namespace: the selector
		// does not apply.
		if labels != nil && !h.NamespaceSelector.matches(labels) {
			return false
		}
	}
	if h.ObjectSelector.empty() {
		return true
	}
	return (a.obj != nil && h.ObjectSelector.matches(labelsOf(a.obj))) ||
		(a.old != nil && h.ObjectSelector.matches(labelsOf(a.old)))
}

// current is the object a review is about: the new one, or on DELETE the
// old one.
func (a admissionAttrs) current() object {
	if a.obj != nil {
		return a.obj
	}
	return a.old
}

func anyOf(list []string, v string) bool {
	return slices.Contains(list, "*") || slices.Contains(list, v)
}

func (s *labelSelector) empty() bool {
	return s == nil || (len(s.MatchLabels) == 0 && len(s.MatchExpressions) == 0)
}

// matches reports whether labels satisfy every term of s, as
// metav1.LabelSelectorAsSelector reads it.
func (s *labelSelector) matches(labels map[string]string) bool {
	for k, v := range s.MatchLabels {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	for _, e := range s.MatchExpressions {
		v, ok := labels[e.Key]
		var hold bool
		switch e.Operator {
		case "In":
			hold = ok && slices.Contains(e.Values, v)
		case "NotIn":
			hold = !ok || !slices.Contains(e.Values, v)
		case "Exists":
			hold = ok
		case "DoesNotExist":
			hold = !ok
		}
		if !hold {
			return false
		}
	}
	return true
}

// errIgnored is a call that failed where failurePolicy is Ignore: the chain
// goes on as if the webhook were not there.
var errIgnored = fmt.Errorf("webhook call failed, ignored")

// call asks h about a and returns its answer when it allowed the write. A
// refusal is the webhook's Status, its message prefixed as kube-apiserver
// does; a failed call is a 500 InternalError, or errIgnored where
// failurePolicy is Ignore; a dry run to a webhook that may have side effects
// is refused, 400, before any call.
func (l *liveState) call(h admissionWebhook, a admissionAttrs) (*admissionResponse, error) {
	if a.t.dryRun && h.SideEffects != "None" && h.SideEffects != "NoneOnDryRun" {
		return nil, fail(http.StatusBadRequest, "admission webhook %q does not support dry run", h.Name)
	}
	resp, err := l.post(h, a)
	if err != nil {
		if h.FailurePolicy == "Ignore" {
			return nil, errIgnored
		}
		return nil, internalError("failed calling webhook %q: %v", h.Name, err)
	}
	if a.t.warn != nil {
		*a.t.warn = append(*a.t.warn, resp.Warnings...)
	}
	if resp.Allowed {
		return resp, nil
	}
	return nil, refusal(h.Name, resp.Status)
}

// admissionResponse is what apitest reads of a webhook's answer.
type admissionResponse struct {
	UID       string         `json:"uid"`
	Allowed   bool           `json:"allowed"`
	Status    *webhookStatus `json:"status"`
	Patch     []byte         `json:"patch"`
	PatchType string         `json:"patchType"`
	Warnings  []string       `json:"warnings"`
}

// webhookStatus is the Status of a refusal.
type webhookStatus struct {
	Message string                   `json:"message"`
	Reason  string                   `json:"reason"`
	Code    int                      `json:"code"`
	Details *apiclient.StatusDetails `json:"details"`
}

// post sends the AdmissionReview and reads the answer: over TLS verified by
// the caBundle, within timeoutSeconds (10 by default), to clientConfig.url.
// A service clientConfig names a Service this server cannot reach: the call
// fails.
func (l *liveState) post(h admissionWebhook, a admissionAttrs) (*admissionResponse, error) {
	if h.ClientConfig.URL == nil {
		return nil, fmt.Errorf("failed to call webhook: apitest cannot reach a Service (clientConfig.service); give the webhook a url")
	}
	timeout := 10 * time.Second
	if h.TimeoutSeconds != nil {
		timeout = time.Duration(*h.TimeoutSeconds) * time.Second
	}
	u, err := url.Parse(*h.ClientConfig.URL)
	if err != nil {
		return nil, fmt.Errorf("failed to call webhook: %v", err)
	}
	q := u.Query()
	q.Set("timeout", strconv.FormatInt(int64(timeout/time.Second), 10)+"s")
	u.RawQuery = q.Encode()
	uid := randomUID(cryptorand.Reader) // a review's own uid: nothing drawn from the server's Rand (perturb's seed)
	body := marshal(reviewOf(uid, a))
	data, err := postReview(u.String(), h.ClientConfig.CABundle, timeout, body)
	if err != nil {
		return nil, fmt.Errorf("failed to call webhook: %v", err)
	}
	var review struct {
		APIVersion string             `json:"apiVersion"`
		Kind       string             `json:"kind"`
		Response   *admissionResponse `json:"response"`
	}
	if err := json.Unmarshal(data, &review); err != nil {
		return nil, fmt.Errorf("received invalid webhook response: %v", err)
	}
	switch {
	case review.APIVersion != "admission.k8s.io/v1" || review.Kind != "AdmissionReview":
		return nil, fmt.Errorf("expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got %s, Kind=%s", review.APIVersion, review.Kind)
	case review.Response == nil:
		return nil, fmt.Errorf("webhook response was absent")
	case review.Response.UID != uid:
		return nil, fmt.Errorf("expected response.uid=%q, got %q", uid, review.Response.UID)
	}
	return review.Response, nil
}

// postReview POSTs a review (an AdmissionReview or a ConversionReview) to a
// webhook's url as kube-apiserver does: over TLS verified by caBundle (the
// system's roots when empty), within timeout, its answer read up to 3 MiB. It
// returns the answer's body; an answer that is not 2xx is an error that quotes
// it.
func postReview(url string, caBundle []byte, timeout time.Duration, body []byte) ([]byte, error) {
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12}
	if len(caBundle) > 0 {
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(caBundle)
		tlsConfig.RootCAs = pool
	}
	transport := &http.Transport{TLSClientConfig: tlsConfig}
	defer transport.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	res, err := (&http.Client{Transport: transport}).Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, 3<<20))
	if err != nil {
		return nil, err
	}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return nil, fmt.Errorf("the server responded with the status code %d: %s", res.StatusCode, strings.TrimSpace(string(data)))
	}
	return data, nil
}

// reviewOf is the AdmissionReview kube-apiserver would send about a. No
// user: apitest authenticates no one.
func reviewOf(uid string, a admissionAttrs) map[string]any {
	t := a.t
	kind := kindOf(t, a.current())
	gvk := map[string]any{"group": t.group, "version": t.version, "kind": kind}
	gvr := map[string]any{"group": t.group, "version": t.version, "resource": t.resource}
	name := t.name
	if name == "" {
		name, _ = a.current().meta()["name"].(string)
	}
	optionsKind := map[string]string{"CREATE": "CreateOptions", "UPDATE": "UpdateOptions", "DELETE": "DeleteOptions"}[a.op]
	options := map[string]any{"kind": optionsKind, "apiVersion": "meta.k8s.io/v1"}
	if a.op != "DELETE" && t.manager != "" {
		options["fieldManager"] = t.manager
	}
	if t.dryRun {
		options["dryRun"] = []any{"All"}
	}
	req := map[string]any{
		"uid": uid, "kind": gvk, "resource": gvr, "requestKind": gvk, "requestResource": gvr,
		"name": name, "namespace": t.namespace, "operation": a.op, "userInfo": map[string]any{},
		"object": nil, "oldObject": nil, "dryRun": t.dryRun, "options": options,
	}
	if t.sub != "" {
		req["subResource"], req["requestSubResource"] = t.sub, t.sub
	}
	if a.obj != nil {
		req["object"] = a.obj
	}
	if a.old != nil {
		req["oldObject"] = a.old
	}
	return map[string]any{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": req}
}

// refusal is a webhook's "allowed: false" as kube-apiserver answers it: the
// webhook's Status, at least 400, its message after `admission webhook
// "NAME" denied the request`.
func refusal(name string, st *webhookStatus) error {
	denied := fmt.Sprintf("admission webhook %q denied the request", name)
	se := statusError{code: http.StatusBadRequest}
	msg := denied + " without explanation"
	if st != nil {
		if st.Code >= http.StatusBadRequest {
			se.code = st.Code
		}
		se.reason = st.Reason
		switch {
		case st.Message != "":
			msg = denied + ": " + st.Message
		case st.Reason != "":
			msg = denied + ": " + st.Reason
		}
		se.details = st.Details
	}
	se.error = fmt.Errorf("%s", msg)
	return se
}

// internalError is kube-apiserver's apierrors.NewInternalError: 500, its
// message after "Internal error occurred: ", and as the one cause.
func internalError(format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	se := statusError{code: http.StatusInternalServerError, reason: "InternalError", error: fmt.Errorf("Internal error occurred: %s", msg)}
	se.details = &apiclient.StatusDetails{Causes: []apiclient.StatusCause{{Message: msg}}}
	return se
}

// warningHeader is one Warning header as kube-apiserver writes it: code
// 299, no agent, the text quoted.
func warningHeader(text string) string {
	return "299 - " + strconv.Quote(text)
}
