package apitest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient/apitest"
)

// raw sends one request to srv and returns the code and the body.
func raw(t *testing.T, srv *apitest.Server, method, path, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if method == http.MethodPatch {
		req.Header.Set("Content-Type", "application/merge-patch+json")
	}
	resp, err := (&http.Client{Transport: srv.Transport()}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// A path the real server does not serve is 404 on apitest too, and nothing is
// stored: a typo in a controller's resource fails its test, as it would fail
// on a cluster.
func TestServed_unknown_resources_are_404(t *testing.T) {
	srv := withDemo(t, apitest.NewServer(nil))
	defer srv.Close()
	cm := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}`
	for _, tc := range []struct {
		method, path string
		text         bool // the mux's plain "404 page not found": a group no one serves
	}{
		{"POST", "/api/v1/namespaces/demo/configmap", false},                   // the singular
		{"POST", "/apis/apps/v1/namespaces/demo/deployment", false},            // the singular
		{"POST", "/apis/apps/v1/namespaces/demo/configmaps", false},            // a wrong group
		{"POST", "/api/v1/namespaces/demo/deployments", false},                 // the core group
		{"GET", "/apis/apps/v2/namespaces/demo/deployments", false},            // a version not served
		{"GET", "/api/v1/namespaces/demo/nodes", false},                        // a cluster-scoped one in a namespace
		{"GET", "/api/v1/namespaces/demo/configmaps/a/scale", false},           // no such subresource
		{"POST", "/apis/gadgets.example.com/v1/namespaces/demo/gadgets", true}, // no CRD
		{"GET", "/apis/gadgets.example.com/v1/gadgets", true},
	} {
		code, body := raw(t, srv, tc.method, tc.path, cm)
		if got, want := code, 404; got != want {
			t.Errorf("%s %s: %d, want %d: %s", tc.method, tc.path, got, want, body)
		}
		if got, want := strings.HasPrefix(body, "404 page not found"), tc.text; got != want {
			t.Errorf("%s %s: plain text %v, want %v: %s", tc.method, tc.path, got, want, body)
		}
	}
	if code, body := raw(t, srv, "POST", "/api/v1/configmaps", cm); code != 405 {
		t.Errorf("POST of a namespaced resource outside a namespace: %d, want 405: %s", code, body)
	}
}

const gadgetCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"gadgets.example.com"},
"spec":{"group":"example.com","scope":"Namespaced",
 "names":{"plural":"gadgets","singular":"gadget","kind":"Gadget","listKind":"GadgetList","shortNames":["gd"]},
 "versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}},
  "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`

// A custom resource is served from its CRD's create, established at once, and
// goes with its CRD's delete, its objects with it.
func TestServed_a_CRD_serves_its_resource_until_deleted(t *testing.T) {
	srv := withDemo(t, apitest.NewServer(nil))
	defer srv.Close()
	const gadgets = "/apis/example.com/v1/namespaces/demo/gadgets"
	code, body := raw(t, srv, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", gadgetCRD)
	if code != 201 {
		t.Fatalf("create the CRD: %d %s", code, body)
	}
	var crd struct {
		Status struct {
			Conditions     []struct{ Type, Status string }
			StoredVersions []string
		}
	}
	json.Unmarshal([]byte(body), &crd)
	conds := map[string]string{}
	for _, c := range crd.Status.Conditions {
		conds[c.Type] = c.Status
	}
	if conds["Established"] != "True" || conds["NamesAccepted"] != "True" {
		t.Errorf("conditions %v, want Established and NamesAccepted True", conds)
	}
	if got, want := strings.Join(crd.Status.StoredVersions, ","), "v1"; got != want {
		t.Errorf("storedVersions %q, want %q", got, want)
	}
	if code, body := raw(t, srv, "POST", gadgets, `{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"g"}}`); code != 201 || !strings.Contains(body, `"kind":"Gadget"`) {
		t.Fatalf("create a gadget: %d %s", code, body)
	}
	if code, _ := raw(t, srv, "GET", gadgets+"/g/status", ""); code != 200 {
		t.Errorf("its status subresource: %d, want 200", code)
	}
	if code, _ := raw(t, srv, "GET", gadgets+"/g/scale", ""); code != 404 {
		t.Errorf("a scale subresource the CRD does not declare: %d, want 404", code)
	}
	if code, body := raw(t, srv, "GET", "/apis/example.com/v2/namespaces/demo/gadgets", ""); code != 404 || body != "404 page not found\n" {
		t.Errorf("a version the CRD does not serve: %d %q, want 404 in plain text", code, body)
	}
	code, body = raw(t, srv, "GET", "/apis/example.com/v1", "")
	if code != 200 || !strings.Contains(body, `"name":"gadgets"`) || !strings.Contains(body, `"gadgets/status"`) {
		t.Errorf("discovery of example.com/v1: %d %s", code, body)
	}
	if _, body := raw(t, srv, "GET", "/apis", ""); !strings.Contains(body, `"name":"example.com"`) || !strings.Contains(body, `"name":"apps"`) {
		t.Errorf("/apis lacks a group: %s", body)
	}

	if code, body := raw(t, srv, "DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.example.com", ""); code != 200 {
		t.Fatalf("delete the CRD: %d %s", code, body)
	}
	if code, body := raw(t, srv, "GET", gadgets+"/g", ""); code != 404 {
		t.Errorf("a gadget after its CRD went: %d %s", code, body)
	}
	// Created again, the resource is empty: the objects went with the CRD.
	raw(t, srv, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", gadgetCRD)
	if code, body := raw(t, srv, "GET", gadgets+"/g", ""); code != 404 {
		t.Errorf("a gadget of the CRD deleted, under the new one: %d %s", code, body)
	}
}

// Discovery is the recorded server's, so that apiclient's resolution (and
// kubewire api-resources) sees the built-in resources a cluster has.
func TestServed_discovery_is_the_recorded_servers(t *testing.T) {
	srv := withDemo(t, apitest.NewServer(nil))
	defer srv.Close()
	for path, want := range map[string]string{
		"/api":                         `"versions":["v1"]`,
		"/api/v1":                      `"name":"configmaps"`,
		"/apis/apps":                   `"preferredVersion":{"groupVersion":"apps/v1"`,
		"/apis/apps/v1":                `"name":"deployments/scale"`,
		"/apis/coordination.k8s.io/v1": `"name":"leases"`,
	} {
		code, body := raw(t, srv, "GET", path, "")
		if code != 200 || !strings.Contains(strings.ReplaceAll(body, " ", ""), want) {
			t.Errorf("GET %s: %d, want %s in %.300s", path, code, want, body)
		}
	}
}

// HandlerOptions.AnyCustomResource serves custom resources without a CRD, and
// built-in groups still as recorded.
func TestServed_any_custom_resource_when_asked(t *testing.T) {
	for _, open := range []bool{false, true} {
		h, stop := apitest.NewHandlerWith(apitest.HandlerOptions{AnyCustomResource: open, Namespaces: []string{"demo"}})
		do := func(method, path, body string) int {
			req := httptest.NewRequest(method, path, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			return rec.Code
		}
		want := map[bool]int{false: 404, true: 201}[open]
		if got := do("POST", "/apis/example.com/v1/namespaces/demo/gadgets", `{"metadata":{"name":"g"}}`); got != want {
			t.Errorf("open=%v: a namespaced gadget: %d, want %d", open, got, want)
		}
		if got := do("POST", "/apis/example.com/v1/clusterthings", `{"metadata":{"name":"c"}}`); got != want {
			t.Errorf("open=%v: a cluster-scoped thing: %d, want %d", open, got, want)
		}
		if got := do("POST", "/apis/apps/v1/namespaces/demo/deployment", `{"metadata":{"name":"d"}}`); got != 404 {
			t.Errorf("open=%v: a typo in a built-in group: %d, want 404", open, got)
		}
		stop()
	}
}
