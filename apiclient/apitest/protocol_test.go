package apitest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient/apitest"
)

// status decodes a Status answer: reason, and its causes as "type:field".
func status(t *testing.T, body string) (reason string, causes []string) {
	t.Helper()
	var st struct {
		Reason  string
		Details struct {
			Causes []struct{ Reason, Field string }
		}
	}
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatalf("not a Status: %s", body)
	}
	for _, c := range st.Details.Causes {
		causes = append(causes, c.Reason+":"+c.Field)
	}
	return st.Reason, causes
}

// The parameters kube-apiserver refuses are refused with its codes, reasons
// and causes (params.go), and refused before anything is done: a DELETE with
// dryRun=Bogus deletes nothing.
func TestProtocol_parameters_are_checked(t *testing.T) {
	srv := withDemo(t, apitest.NewServer(nil))
	defer srv.Close()
	const cms = "/api/v1/namespaces/demo/configmaps"
	if code, body := raw(t, srv, "POST", cms, `{"metadata":{"name":"a"}}`); code != 201 {
		t.Fatalf("create: %d %s", code, body)
	}
	long := strings.Repeat("m", 129)
	for _, tc := range []struct {
		method, path, ct, body string
		code                   int
		reason, cause          string
	}{
		{"GET", cms + "?resourceVersionMatch=NotOlderThan", "", "", 422, "Invalid", "FieldValueForbidden:resourceVersionMatch"},
		{"GET", cms + "?resourceVersionMatch=Bogus&resourceVersion=0", "", "", 422, "Invalid", "FieldValueNotSupported:resourceVersionMatch"},
		{"GET", cms + "?watch=1&timeoutSeconds=1&resourceVersion=0&resourceVersionMatch=NotOlderThan", "", "", 422, "Invalid", "FieldValueForbidden:resourceVersionMatch"},
		{"GET", cms + "?sendInitialEvents=true", "", "", 422, "Invalid", "FieldValueForbidden:sendInitialEvents"},
		{"GET", cms + "?limit=x", "", "", 400, "BadRequest", ""},
		{"GET", cms + "?resourceVersion=x", "", "", 400, "BadRequest", ""},
		{"DELETE", cms + "/a?dryRun=Bogus", "", "", 422, "Invalid", "FieldValueNotSupported:dryRun"},
		{"POST", cms + "?dryRun=Bogus", "application/json", `{"metadata":{"name":"b"}}`, 422, "Invalid", "FieldValueNotSupported:dryRun"},
		{"POST", cms + "?fieldManager=" + long, "application/json", `{"metadata":{"name":"b"}}`, 422, "Invalid", "FieldValueTooLong:fieldManager"},
		{"PATCH", cms + "/a", "application/apply-patch+yaml", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}`, 422, "Invalid", "FieldValueRequired:fieldManager"},
		{"PATCH", cms + "/a?force=true", "application/merge-patch+json", `{}`, 422, "Invalid", "FieldValueForbidden:force"},
	} {
		code, body := rawCT(t, srv, tc.method, tc.path, tc.ct, tc.body)
		reason, causes := status(t, body)
		if code != tc.code || reason != tc.reason || strings.Join(causes, ",") != tc.cause {
			t.Errorf("%s %.80s: %d %s %v, want %d %s %s", tc.method, tc.path, code, reason, causes, tc.code, tc.reason, tc.cause)
		}
	}
	if code, body := raw(t, srv, "GET", cms+"/a", ""); code != 200 {
		t.Errorf("the object after a refused delete: %d %s", code, body)
	}
}

// Bodies must match their URL; a create carries no resourceVersion; a
// generateName is cut so that the name stays within 63; a Lease's update
// names the version it read.
func TestProtocol_writes_are_checked_as_on_the_server(t *testing.T) {
	srv := withDemo(t, apitest.NewServer(nil))
	defer srv.Close()
	const cms = "/api/v1/namespaces/demo/configmaps"
	raw(t, srv, "POST", cms, `{"metadata":{"name":"a"}}`)
	for _, tc := range []struct {
		method, path, ct, body string
		code                   int
	}{
		{"POST", cms, "application/json", `{"metadata":{"name":"b","resourceVersion":"5"}}`, 500},
		{"POST", cms, "application/json", `{"metadata":{"name":"b","namespace":"other"}}`, 400},
		{"PUT", cms + "/a", "application/json", `{"metadata":{"name":"a","namespace":"other"}}`, 400},
		{"PUT", cms + "/nope", "application/json", `{"metadata":{"name":"other"}}`, 400},
		{"PATCH", cms + "/a", "application/merge-patch+json", `{"metadata":{"name":"b"}}`, 400},
		{"PATCH", cms + "/a", "application/merge-patch+json", `{"metadata":{"namespace":"other"}}`, 400},
		{"PATCH", cms + "/a", "application/merge-patch+json", `{"kind":"Secret"}`, 422},
	} {
		if code, body := rawCT(t, srv, tc.method, tc.path, tc.ct, tc.body); code != tc.code {
			t.Errorf("%s %s %s: %d, want %d: %s", tc.method, tc.path, tc.body, code, tc.code, body)
		}
	}
	if code, _ := raw(t, srv, "GET", cms+"/b", ""); code != 404 {
		t.Errorf("a refused create stored its object: %d", code)
	}
	gen := strings.Repeat("g", 62) + "-"
	code, body := raw(t, srv, "POST", cms, `{"metadata":{"generateName":"`+gen+`"}}`)
	var o struct{ Metadata struct{ Name string } }
	json.Unmarshal([]byte(body), &o)
	if code != 201 || len(o.Metadata.Name) != 63 || !strings.HasPrefix(o.Metadata.Name, gen[:58]) {
		t.Errorf("a 63-character generateName: %d, name %q (%d characters), want 63 from its first 58", code, o.Metadata.Name, len(o.Metadata.Name))
	}
	const leases = "/apis/coordination.k8s.io/v1/namespaces/demo/leases"
	raw(t, srv, "POST", leases, `{"metadata":{"name":"l"},"spec":{"holderIdentity":"a"}}`)
	if code, body := raw(t, srv, "PUT", leases+"/l", `{"metadata":{"name":"l"},"spec":{"holderIdentity":"b"}}`); code != 422 {
		t.Errorf("a Lease's update without resourceVersion: %d, want 422: %s", code, body)
	}
}

// A DELETE of a collection deletes what its selectors select (finalizers
// hold theirs, a dry run nothing) and answers them as they were.
func TestProtocol_a_collection_is_deleted(t *testing.T) {
	srv := withDemo(t, apitest.NewServer(nil))
	defer srv.Close()
	const cms = "/api/v1/namespaces/demo/configmaps"
	raw(t, srv, "POST", cms, `{"metadata":{"name":"a","labels":{"sel":"on"}}}`)
	raw(t, srv, "POST", cms, `{"metadata":{"name":"b","labels":{"sel":"on"},"finalizers":["example.com/f"]}}`)
	raw(t, srv, "POST", cms, `{"metadata":{"name":"c"}}`)
	names := func(body string) string {
		var l struct {
			Kind  string
			Items []struct{ Metadata struct{ Name string } }
		}
		json.Unmarshal([]byte(body), &l)
		var n []string
		for _, it := range l.Items {
			n = append(n, it.Metadata.Name)
		}
		return l.Kind + " " + strings.Join(n, ",")
	}
	if code, body := raw(t, srv, "DELETE", cms+"?labelSelector=sel%3Don&dryRun=All", ""); code != 200 || names(body) != "ConfigMapList a,b" {
		t.Errorf("a dry run: %d %s", code, names(body))
	}
	if _, body := raw(t, srv, "GET", cms, ""); names(body) != "ConfigMapList a,b,c" {
		t.Errorf("after a dry run: %s", names(body))
	}
	if code, body := raw(t, srv, "DELETE", cms+"?labelSelector=sel%3Don", ""); code != 200 || names(body) != "ConfigMapList a,b" {
		t.Errorf("the delete: %d %s", code, names(body))
	}
	_, body := raw(t, srv, "GET", cms, "")
	if got, want := names(body), "ConfigMapList b,c"; got != want {
		t.Errorf("after: %s, want %s (b held by its finalizer)", got, want)
	}
	if !strings.Contains(body, "deletionTimestamp") {
		t.Errorf("b is not marked deleted: %s", body)
	}
}

// A read at a version the server has not reached is 504 with its cause and a
// Retry-After, for a GET as for a LIST; a LIST at resourceVersion 0 is
// answered whole, whatever its limit.
func TestProtocol_reads_at_versions(t *testing.T) {
	srv := withDemo(t, apitest.NewServer(nil))
	defer srv.Close()
	const cms = "/api/v1/namespaces/demo/configmaps"
	raw(t, srv, "POST", cms, `{"metadata":{"name":"a"}}`)
	raw(t, srv, "POST", cms, `{"metadata":{"name":"b"}}`)
	for _, path := range []string{cms + "/a?resourceVersion=999999", cms + "?resourceVersion=999999"} {
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		resp, err := (&http.Client{Transport: srv.Transport()}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var st struct {
			Reason  string
			Details struct {
				Causes []struct{ Reason string }
			}
		}
		json.NewDecoder(resp.Body).Decode(&st)
		resp.Body.Close()
		if resp.StatusCode != 504 || resp.Header.Get("Retry-After") != "1" || len(st.Details.Causes) != 1 || st.Details.Causes[0].Reason != "ResourceVersionTooLarge" {
			t.Errorf("GET %s: %d Retry-After %q %+v, want 504, 1, ResourceVersionTooLarge", path, resp.StatusCode, resp.Header.Get("Retry-After"), st)
		}
	}
	_, body := raw(t, srv, "GET", cms+"?resourceVersion=0&limit=1", "")
	if strings.Contains(body, `"continue"`) || strings.Count(body, `"name":`) != 2 {
		t.Errorf("a LIST at 0 with limit 1: %s, want both and no continue", body)
	}
}

// rawCT is raw with a content type of its own ("" for none).
func rawCT(t *testing.T, srv *apitest.Server, method, path, ct, body string) (int, string) {
	t.Helper()
	resp, out := rawResponse(t, srv, method, path, ct, body)
	return resp.StatusCode, out
}

// rawResponse sends one request as written and answers the response (its
// body read and closed) and the body.
func rawResponse(t *testing.T, srv *apitest.Server, method, path, ct, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	resp, err := (&http.Client{Transport: srv.Transport()}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}
