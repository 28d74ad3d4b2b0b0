package apiclient_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/kubeconfig"
)

// FuzzDiscovery: whatever the server says at /api, /apis and the group-version
// paths, aggregated or legacy, discovery ends in resources or a one-line error,
// never a panic; and resolving any name gives one of the discovered resources or
// an error. The server is a RoundTripper in memory, so a run does no I/O.
//
//	go test ./apiclient -run '^$' -fuzz '^FuzzDiscovery$' -fuzztime 1000000x
func FuzzDiscovery(f *testing.F) {
	const gvJSON = `{"kind":"APIResourceList","groupVersion":"apps/v1","resources":[{"name":"deployments","singularName":"deployment","namespaced":true,"kind":"Deployment","verbs":["get","list","watch"],"shortNames":["deploy"],"categories":["all"]},{"name":"deployments/status","kind":"Deployment"}]}`
	f.Add(false, []byte(`{"kind":"APIVersions","versions":["v1"]}`), []byte(gvJSON), "deploy")
	f.Add(false, []byte(`{"kind":"APIGroupList","groups":[{"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}}]}`), []byte(gvJSON), "deployments.v1.apps")
	f.Add(true, []byte(`{"kind":"APIGroupDiscoveryList","items":[{"metadata":{"name":"apps"},"versions":[{"version":"v1","resources":[{"resource":"deployments","responseKind":{"kind":"Deployment"},"scope":"Namespaced","singularResource":"deployment","verbs":["list"],"shortNames":["deploy"]}]}]}]}`), []byte(nil), "DEPLOY")
	f.Add(false, mustReadFile(f, "testdata/discovery/legacy/apis.json"), mustReadFile(f, "testdata/discovery/legacy/apis_apps_v1.json"), "po")
	f.Add(true, mustReadFile(f, "testdata/discovery/aggregated/api.json"), []byte(nil), "pods")
	f.Add(false, []byte(`{"groups":[{"name":"../..","versions":[{"version":"?x=1#"}]}]}`), []byte(`{"resources":[{"name":""}]}`), ".")
	f.Fuzz(func(t *testing.T, aggregated bool, root, gv []byte, name string) {
		requests := 0
		rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
			requests++
			body, ct := gv, "application/json"
			if r.URL.Path == "/api" || r.URL.Path == "/apis" {
				body = root
				if aggregated {
					ct = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
				}
			}
			return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {ct}}, Body: io.NopCloser(bytes.NewReader(body)), Request: r}, nil
		})
		c, err := apiclient.New(&kubeconfig.Config{Server: "https://fuzz.example", Namespace: "default", Source: "fuzz"}, apiclient.Options{Transport: rt, QPS: -1})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		all, err := c.ServerResources(ctx)
		if err != nil {
			if strings.ContainsAny(err.Error(), "\r\n") {
				t.Fatalf("error %q spans several lines", err)
			}
			return
		}
		if requests > 2+len(root) {
			t.Fatalf("%d requests for a root document of %d bytes", requests, len(root))
		}
		if _, err := c.PreferredResources(ctx); err != nil {
			t.Fatalf("PreferredResources after ServerResources: %v", err)
		}
		r, err := c.Resolve(ctx, name)
		if err != nil {
			return
		}
		for _, have := range all {
			if have.Group == r.Group && have.Version == r.Version && have.Name == r.Name {
				return
			}
		}
		t.Fatalf("Resolve(%q) = %+v, which discovery did not list", name, r)
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func mustReadFile(f *testing.F, path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	return b
}
