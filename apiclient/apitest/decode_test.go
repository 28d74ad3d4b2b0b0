package apitest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient/apitest"
)

// A built-in object keeps only the fields its type has, as kube-apiserver
// decodes it: the rest are dropped with a warning, refused under Strict,
// dropped silently under Ignore, and an apply that carries one is a 500.
func TestDecode_unknown_fields_of_built_in_kinds(t *testing.T) {
	srv := apitest.NewServer(nil)
	defer srv.Close()
	const cms = "/api/v1/namespaces/demo/configmaps"
	send := func(method, path, ct, body string) (int, []string, string) {
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", ct)
		resp, err := (&http.Client{Transport: srv.Transport()}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		buf := make([]byte, 1<<16)
		n, _ := resp.Body.Read(buf)
		b.Write(buf[:n])
		return resp.StatusCode, resp.Header.Values("Warning"), b.String()
	}
	code, warns, body := send("POST", cms, "application/json", `{"metadata":{"name":"a","extra":"x"},"extra":1,"data":{"k":"v"}}`)
	if code != 201 || strings.Contains(body, "extra") || len(warns) != 2 || !strings.Contains(strings.Join(warns, "|"), `unknown field \"metadata.extra\"`) {
		t.Errorf("a create with unknown fields: %d %q %s, want 201, both dropped and warned of", code, warns, body)
	}
	if code, _, _ := send("POST", cms+"?fieldValidation=Strict", "application/json", `{"metadata":{"name":"b"},"extra":1}`); code != 400 {
		t.Errorf("Strict: %d, want 400", code)
	}
	if code, warns, _ := send("POST", cms+"?fieldValidation=Ignore", "application/json", `{"metadata":{"name":"c"},"extra":1}`); code != 201 || len(warns) != 0 {
		t.Errorf("Ignore: %d %q, want 201 and no warning", code, warns)
	}
	if code, _, _ := send("POST", cms+"?fieldValidation=Bogus", "application/json", `{"metadata":{"name":"d"}}`); code != 422 {
		t.Errorf("Bogus: %d, want 422", code)
	}
	if code, _, _ := send("PATCH", cms+"/a?fieldValidation=Strict", "application/merge-patch+json", `{"extra":1}`); code != 422 {
		t.Errorf("a Strict merge patch: %d, want 422", code)
	}
	if code, _, _ := send("PATCH", cms+"/a?fieldManager=m", "application/apply-patch+yaml", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"extra":1}`); code != 500 {
		t.Errorf("an apply with an unknown field: %d, want 500", code)
	}
}

// Quantities are kept canonical: what a controller reads back is what a
// cluster answers, so a comparison with what it wants converges as there.
func TestDecode_quantities_are_canonical(t *testing.T) {
	srv := apitest.NewServer(nil)
	defer srv.Close()
	code, body := raw(t, srv, "POST", "/api/v1/namespaces/demo/pods", `{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":"0.5","memory":"1024Mi"},"limits":{"memory":"1.5Gi"}}}]}}`)
	for _, want := range []string{`"cpu":"500m"`, `"memory":"1Gi"`, `"memory":"1536Mi"`} {
		if code != 201 || !strings.Contains(body, want) {
			t.Errorf("create: %d, want %s in %s", code, want, body)
		}
	}
	if code, _ := raw(t, srv, "PATCH", "/api/v1/namespaces/demo/pods/p", `{"spec":{"containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":"1.5.5"}}}]}}`); code != 400 {
		t.Errorf("a patch to a quantity that is none: %d, want 400", code)
	}
}
