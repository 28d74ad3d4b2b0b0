package apitest_test

import (
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient/apitest"
)

// The namespaces every cluster has are there from the start; a new one is
// Active, labelled with its name, held by the finalizer "kubernetes".
func TestNamespaces_exist_as_on_a_cluster(t *testing.T) {
	srv := apitest.NewServer(nil)
	defer srv.Close()
	code, out := raw(t, srv, "GET", "/api/v1/namespaces", "")
	for _, ns := range []string{"default", "kube-system", "kube-public", "kube-node-lease"} {
		if code != 200 || !strings.Contains(out, `"name":"`+ns+`"`) {
			t.Errorf("namespace %s missing: %d %s", ns, code, out)
		}
	}
	code, out = raw(t, srv, "POST", "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"shop"}}`)
	for _, want := range []string{`"kubernetes.io/metadata.name":"shop"`, `"spec":{"finalizers":["kubernetes"]}`, `"status":{"phase":"Active"}`} {
		if code != 201 || !strings.Contains(out, want) {
			t.Errorf("created: %d, want %s in %s", code, want, out)
		}
	}
}

// A create in a namespace that does not exist is 404, whether by POST, by a
// PUT that creates or by an apply; reads there find nothing.
func TestNamespaces_a_create_in_a_missing_one_is_404(t *testing.T) {
	srv := apitest.NewServer(nil)
	defer srv.Close()
	const cms = "/api/v1/namespaces/nowhere/configmaps"
	for _, tc := range []struct{ method, path, ct string }{
		{"POST", cms, "application/json"},
		{"PATCH", cms + "/a?fieldManager=m", applyCT},
		{"PUT", "/apis/coordination.k8s.io/v1/namespaces/nowhere/leases/a", "application/json"},
	} {
		kind := `"kind":"ConfigMap","apiVersion":"v1"`
		if strings.Contains(tc.path, "leases") {
			kind = `"kind":"Lease","apiVersion":"coordination.k8s.io/v1"`
		}
		code, out := rawCT(t, srv, tc.method, tc.path, tc.ct, `{`+kind+`,"metadata":{"name":"a"}}`)
		if reason, _ := status(t, out); code != 404 || reason != "NotFound" || !strings.Contains(out, `"kind":"namespaces"`) {
			t.Errorf("%s %s: %d %s", tc.method, tc.path, code, out)
		}
	}
	if code, out := raw(t, srv, "GET", cms, ""); code != 200 || !strings.Contains(out, `"items":[]`) {
		t.Errorf("a LIST there: %d %s", code, out)
	}
}

// DELETE makes a namespace Terminating (no controller finishes it): creates
// in it are 403 NamespaceTerminating, other writes go on; PUT …/finalize
// without the finalizer does the controller's work at once — its objects
// deleted, then the namespace.
func TestNamespaces_terminate_then_finalize(t *testing.T) {
	srv := apitest.NewServer(nil)
	defer srv.Close()
	const ns, cms = "/api/v1/namespaces/shop", "/api/v1/namespaces/shop/configmaps"
	raw(t, srv, "POST", "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"shop"}}`)
	if code, out := raw(t, srv, "POST", cms, `{"metadata":{"name":"a"}}`); code != 201 {
		t.Fatalf("create: %d %s", code, out)
	}
	code, out := raw(t, srv, "DELETE", ns, "")
	if code != 200 || !strings.Contains(out, `"phase":"Terminating"`) || !strings.Contains(out, `"deletionTimestamp"`) {
		t.Fatalf("delete: %d %s", code, out)
	}
	code, out = raw(t, srv, "POST", cms, `{"metadata":{"name":"b"}}`)
	if reason, causes := status(t, out); code != 403 || reason != "Forbidden" || strings.Join(causes, ",") != "NamespaceTerminating:metadata.namespace" {
		t.Errorf("a create in a terminating namespace: %d %s %v", code, reason, causes)
	}
	if code, out := rawCT(t, srv, "PATCH", cms+"/a", "application/merge-patch+json", `{"data":{"k":"v"}}`); code != 200 {
		t.Errorf("a patch there: %d %s", code, out)
	}
	if code, out := raw(t, srv, "PUT", ns, `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"shop"},"spec":{"finalizers":[]}}`); code != 200 || !strings.Contains(out, `"finalizers":["kubernetes"]`) {
		t.Errorf("an update keeps spec.finalizers: %d %s", code, out)
	}
	if code, out := raw(t, srv, "PUT", ns+"/finalize", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"shop"},"spec":{"finalizers":[]}}`); code != 200 {
		t.Fatalf("finalize: %d %s", code, out)
	}
	if code, _ := raw(t, srv, "GET", ns, ""); code != 404 {
		t.Errorf("the namespace after finalize: %d, want 404", code)
	}
	if code, _ := raw(t, srv, "GET", cms+"/a", ""); code != 404 {
		t.Errorf("its ConfigMap after finalize: %d, want 404", code)
	}
	if code, out := raw(t, srv, "DELETE", "/api/v1/namespaces/default", ""); code != 403 {
		t.Errorf("delete default: %d %s", code, out)
	}
}
