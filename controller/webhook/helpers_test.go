package webhook_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/controller/webhook"
)

// Site is a custom resource in two versions: v1 has one image, v2 a list of
// containers; v2 is the hub.
type Site struct {
	apiclient.TypeMeta
	apiclient.ObjectMeta `json:"metadata"`
	Spec                 SiteSpec `json:"spec"`
}

type SiteSpec struct {
	Image    string `json:"image,omitempty"`
	Replicas int32  `json:"replicas"`
	Tier     string `json:"tier,omitempty"`
}

var Sites = apiclient.Resource{Group: "webhook-test.kubewire.io", Version: "v1", Name: "sites", Kind: "Site", Namespaced: true}

func (*Site) Resource() apiclient.Resource { return Sites }

type SiteV2 struct {
	apiclient.TypeMeta
	apiclient.ObjectMeta `json:"metadata"`
	Spec                 SiteV2Spec `json:"spec"`
}

type SiteV2Spec struct {
	Containers []Container `json:"containers,omitempty"`
	Replicas   int32       `json:"replicas"`
	Tier       string      `json:"tier,omitempty"`
}

type Container struct {
	Name  string `json:"name"`
	Image string `json:"image,omitempty"`
}

var SitesV2 = apiclient.Resource{Group: "webhook-test.kubewire.io", Version: "v2", Name: "sites", Kind: "Site", Namespaced: true}

func (*SiteV2) Resource() apiclient.Resource { return SitesV2 }

// siteV1ToV2 and siteV2ToV1 convert through the hub, v2: v1's image is the
// container "main"; what v1 cannot say of v2 (other containers) waits in an
// annotation, so that nothing is lost either way.
func siteV1ToV2(from *Site, to *SiteV2) error {
	to.ObjectMeta = from.ObjectMeta
	to.Spec.Replicas, to.Spec.Tier = from.Spec.Replicas, from.Spec.Tier
	if from.Spec.Image != "" {
		to.Spec.Containers = []Container{{Name: "main", Image: from.Spec.Image}}
	}
	if more, ok := from.Annotations[moreContainers]; ok {
		var rest []Container
		if err := json.Unmarshal([]byte(more), &rest); err != nil {
			return err
		}
		to.Spec.Containers = append(to.Spec.Containers, rest...)
		to.Annotations = without(from.Annotations, moreContainers)
	}
	return nil
}

func siteV2ToV1(from *SiteV2, to *Site) error {
	to.ObjectMeta = from.ObjectMeta
	to.Spec.Replicas, to.Spec.Tier = from.Spec.Replicas, from.Spec.Tier
	rest := from.Spec.Containers
	if len(rest) > 0 && rest[0].Name == "main" {
		to.Spec.Image, rest = rest[0].Image, rest[1:]
	}
	if len(rest) > 0 {
		more, _ := json.Marshal(rest)
		to.Annotations = with(from.Annotations, moreContainers, string(more))
	}
	return nil
}

const moreContainers = "webhook-test.kubewire.io/more-containers"

func with(m map[string]string, k, v string) map[string]string {
	out := map[string]string{k: v}
	for key, val := range m {
		out[key] = val
	}
	return out
}

func without(m map[string]string, k string) map[string]string {
	out := map[string]string{}
	for key, val := range m {
		if key != k {
			out[key] = val
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// served is a webhook Server running on loopback against an in-memory API
// server, and an HTTP client that trusts its CA.
type served struct {
	*webhook.Server
	api    *apitest.Server
	client *apiclient.Client
	http   *http.Client
}

// serve runs the webhooks register adds on a new Server, until the test ends.
func serve(t *testing.T, opts webhook.Options, register func(*webhook.Server)) *served {
	t.Helper()
	api := apitest.NewServer(nil)
	api.CreateNamespaces("demo", "ns", "ops")
	t.Cleanup(api.Close)
	client, err := api.Client(apiclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return serveOn(t, api, client, opts, register)
}

func serveOn(t *testing.T, api *apitest.Server, client *apiclient.Client, opts webhook.Options, register func(*webhook.Server)) *served {
	t.Helper()
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	s := webhook.NewServer(client, opts)
	register(s)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	select {
	case <-s.Started():
	case err := <-done:
		t.Fatalf("Run: %v", err)
	}
	return &served{Server: s, api: api, client: client, http: httpClientFor(t, s.CABundle())}
}

// httpClientFor is an HTTP client that trusts the CA ca (PEM).
func httpClientFor(t *testing.T, ca []byte) *http.Client {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		t.Fatal("the CA bundle holds no certificate")
	}
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	t.Cleanup(hc.CloseIdleConnections)
	return hc
}

// post sends body to path and returns the status code and the body answered.
func (s *served) post(t *testing.T, path string, body []byte) (int, []byte) {
	t.Helper()
	resp, err := s.http.Post(s.URL()+path, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

// admissionReview is the review the API server sends for op on obj (and old).
func admissionReview(t *testing.T, op webhook.Operation, obj, old any) []byte {
	t.Helper()
	req := webhook.AdmissionRequest{UID: "uid-" + strconv.Itoa(len(op)), Operation: op,
		Kind:     webhook.GroupVersionKind{Group: Sites.Group, Version: "v1", Kind: "Site"},
		Resource: webhook.GroupVersionResource{Group: Sites.Group, Version: "v1", Resource: "sites"}}
	for _, x := range []struct {
		v   any
		dst *json.RawMessage
	}{{obj, &req.Object}, {old, &req.OldObject}} {
		switch v := x.v.(type) {
		case nil:
		case string:
			*x.dst = json.RawMessage(v)
		default:
			b, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			*x.dst = b
		}
	}
	body, err := json.Marshal(webhook.AdmissionReview{TypeMeta: apiclient.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"}, Request: &req})
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// review posts an AdmissionReview to path and decodes the answer.
func (s *served) review(t *testing.T, path string, body []byte) *webhook.AdmissionResponse {
	t.Helper()
	code, out := s.post(t, path, body)
	return answer(t, code, out)
}

// answer decodes an AdmissionReview's response.
func answer(t *testing.T, code int, body []byte) *webhook.AdmissionResponse {
	t.Helper()
	if code != http.StatusOK {
		t.Fatalf("answered %d: %s", code, body)
	}
	var review webhook.AdmissionReview
	if err := json.Unmarshal(body, &review); err != nil || review.Response == nil {
		t.Fatalf("not a review with a response (%v): %s", err, body)
	}
	if got, want := review.APIVersion+" "+review.Kind, "admission.k8s.io/v1 AdmissionReview"; got != want {
		t.Fatalf("answered a %s, want a %s", got, want)
	}
	// admission/v1 names the refusal's Status "status"; under any other
	// name the API server reads a refusal "without explanation".
	var wire struct {
		Response map[string]json.RawMessage `json:"response"`
	}
	json.Unmarshal(body, &wire)
	if _, ok := wire.Response["status"]; !review.Response.Allowed && !ok {
		t.Fatalf("a refusal without a member \"status\": %s", body)
	}
	return review.Response
}

// applyPatch applies an RFC 6902 patch (add, remove, replace) to doc: the
// reference the tests hold the webhook's patches to.
func applyPatch(doc any, patch []byte) (any, error) {
	if len(patch) == 0 {
		return doc, nil
	}
	var ops []struct {
		Op    string          `json:"op"`
		Path  string          `json:"path"`
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(patch, &ops); err != nil {
		return nil, err
	}
	for _, op := range ops {
		var value any
		if op.Op != "remove" {
			dec := json.NewDecoder(bytes.NewReader(op.Value))
			dec.UseNumber()
			if err := dec.Decode(&value); err != nil {
				return nil, fmt.Errorf("%s %s: value: %v", op.Op, op.Path, err)
			}
		}
		if op.Path == "" {
			if op.Op != "replace" && op.Op != "add" {
				return nil, fmt.Errorf("%s of the root", op.Op)
			}
			doc = value
			continue
		}
		tokens := strings.Split(op.Path, "/")[1:]
		parent := doc
		for _, tok := range tokens[:len(tokens)-1] {
			next, err := step(parent, unescape(tok))
			if err != nil {
				return nil, fmt.Errorf("%s %s: %v", op.Op, op.Path, err)
			}
			parent = next
		}
		last := unescape(tokens[len(tokens)-1])
		switch p := parent.(type) {
		case map[string]any:
			_, ok := p[last]
			switch {
			case op.Op == "add":
				p[last] = value
			case !ok:
				return nil, fmt.Errorf("%s %s: no member %q", op.Op, op.Path, last)
			case op.Op == "remove":
				delete(p, last)
			case op.Op == "replace":
				p[last] = value
			}
		case []any:
			i, err := strconv.Atoi(last)
			if err != nil || i < 0 || i >= len(p) || op.Op != "replace" {
				return nil, fmt.Errorf("%s %s: only replace of an existing item is used", op.Op, op.Path)
			}
			p[i] = value
		default:
			return nil, fmt.Errorf("%s %s: the parent is not a container", op.Op, op.Path)
		}
	}
	return doc, nil
}

func step(v any, tok string) (any, error) {
	switch c := v.(type) {
	case map[string]any:
		next, ok := c[tok]
		if !ok {
			return nil, fmt.Errorf("no member %q", tok)
		}
		return next, nil
	case []any:
		i, err := strconv.Atoi(tok)
		if err != nil || i < 0 || i >= len(c) {
			return nil, fmt.Errorf("no item %q", tok)
		}
		return c[i], nil
	}
	return nil, fmt.Errorf("%q inside a scalar", tok)
}

func unescape(tok string) string {
	return strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
}

// decode reads JSON with numbers kept as written.
func decode(t *testing.T, data []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}
