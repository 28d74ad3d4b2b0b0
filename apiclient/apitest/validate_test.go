package apitest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient/apitest"
)

// A CRD with a structural schema: typed fields, defaults, an object that
// keeps unknown fields, an embedded resource.
const gearCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"gears.example.com"},
"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"gears","singular":"gear","kind":"Gear","listKind":"GearList"},
 "versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}},
  "schema":{"openAPIV3Schema":{"type":"object","properties":{
   "spec":{"type":"object","properties":{
     "replicas":{"type":"integer","default":1},
     "nested":{"type":"object","default":{},"properties":{"b":{"type":"integer","default":2}}},
     "free":{"type":"object","x-kubernetes-preserve-unknown-fields":true},
     "embedded":{"type":"object","x-kubernetes-embedded-resource":true,"properties":{"spec":{"type":"object"}}}}},
   "status":{"type":"object","properties":{"phase":{"type":"string"}}}}}}}]}}`

const gears = "/apis/example.com/v1/namespaces/ns/gears"

// A custom resource is pruned by its CRD's schema, with a warning per field
// dropped, and defaulted; a value of the wrong type is 422 with its path.
func TestValidate_custom_resources_pruned_checked_and_defaulted(t *testing.T) {
	srv := apitest.NewServer(nil)
	srv.CreateNamespaces("ns")
	defer srv.Close()
	if code, body := raw(t, srv, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", gearCRD); code != 201 {
		t.Fatalf("CRD: %d %s", code, body)
	}
	code, body := raw(t, srv, "POST", gears, `{"apiVersion":"example.com/v1","kind":"Gear","metadata":{"name":"a","junk":1},
		"extra":1,"spec":{"bogus":1,"free":{"kept":1},"embedded":{"apiVersion":"v1","kind":"X","metadata":{"name":"e","junk":2},"spec":{"any":1},"other":3}}}`)
	if code != 201 {
		t.Fatalf("create: %d %s", code, body)
	}
	for _, want := range []string{`"replicas":1`, `"nested":{"b":2}`, `"free":{"kept":1}`, `"embedded":{"apiVersion":"v1","kind":"X","metadata":{"name":"e"},"spec":{}}`} {
		if !strings.Contains(body, want) {
			t.Errorf("create: no %s in %s", want, body)
		}
	}
	for _, gone := range []string{"junk", "extra", "bogus", "other"} {
		if strings.Contains(body, gone) {
			t.Errorf("create: %s kept: %s", gone, body)
		}
	}
	code, body = raw(t, srv, "POST", gears+"?fieldValidation=Strict", `{"apiVersion":"example.com/v1","kind":"Gear","metadata":{"name":"b"},"spec":{"bogus":1}}`)
	if got, want := code, http.StatusBadRequest; got != want || !strings.Contains(body, `unknown field \"spec.bogus\"`) {
		t.Errorf("Strict: %d %s, want %d", got, body, want)
	}
	code, body = raw(t, srv, "POST", gears, `{"apiVersion":"example.com/v1","kind":"Gear","metadata":{"name":"c"},"spec":{"replicas":"three"}}`)
	if got, want := code, http.StatusUnprocessableEntity; got != want || !strings.Contains(body, `"reason":"FieldValueTypeInvalid"`) || !strings.Contains(body, `"field":"spec.replicas"`) {
		t.Errorf("wrong type: %d %s, want %d", got, body, want)
	}
	// A merge patch that deletes a defaulted field gets the default back.
	code, body = raw(t, srv, "PATCH", gears+"/a", `{"spec":{"replicas":null,"nested":{"b":7}}}`)
	if code != 200 || !strings.Contains(body, `"replicas":1`) || !strings.Contains(body, `"nested":{"b":7}`) {
		t.Errorf("patch: %d %s", code, body)
	}
}

// Names, labels, annotations and finalizers are checked as kube-apiserver
// checks them, with a cause each.
func TestValidate_metadata(t *testing.T) {
	srv := apitest.NewServer(nil)
	srv.CreateNamespaces("ns")
	defer srv.Close()
	cms := "/api/v1/namespaces/ns/configmaps"
	for _, c := range []struct{ meta, field string }{
		{`"name":"Bad_Name"`, "metadata.name"},
		{`"name":"` + strings.Repeat("n", 254) + `"`, "metadata.name"},
		{`"name":"a","labels":{"bad key!":"v"}`, "metadata.labels"},
		{`"name":"a","labels":{"k":"bad value!"}`, "metadata.labels"},
		{`"name":"a","annotations":{"a/b/c":"v"}`, "metadata.annotations"},
		{`"name":"a","annotations":{"a":"` + strings.Repeat("x", 256<<10) + `"}`, "metadata.annotations"},
		{`"name":"a","finalizers":["foo"]`, "metadata.finalizers[0]"},
		{`"name":"a","finalizers":["bad/fin/x"]`, "metadata.finalizers"},
	} {
		code, body := raw(t, srv, "POST", cms, `{"metadata":{`+c.meta+`}}`)
		if got, want := code, http.StatusUnprocessableEntity; got != want || !strings.Contains(body, `"field":"`+c.field+`"`) {
			t.Errorf("%.60s: %d %.300s, want %d at %s", c.meta, got, body, want, c.field)
		}
	}
	if code, body := raw(t, srv, "POST", cms, `{"metadata":{"name":"a.b-c","labels":{"example.com/k":"v_1"},"finalizers":["example.com/f","kubernetes"]}}`); code != 201 {
		t.Errorf("valid: %d %s", code, body)
	}
}

// An immutable ConfigMap keeps its data and its mark; its metadata may change.
func TestValidate_immutable_configmaps(t *testing.T) {
	srv := apitest.NewServer(nil)
	srv.CreateNamespaces("ns")
	defer srv.Close()
	cm := "/api/v1/namespaces/ns/configmaps/im"
	if code, body := raw(t, srv, "POST", "/api/v1/namespaces/ns/configmaps", `{"metadata":{"name":"im"},"immutable":true,"data":{"a":"1"}}`); code != 201 {
		t.Fatalf("create: %d %s", code, body)
	}
	for patch, field := range map[string]string{`{"data":{"a":"2"}}`: "data", `{"immutable":false}`: "immutable", `{"binaryData":{"b":"eA=="}}`: "binaryData"} {
		code, body := raw(t, srv, "PATCH", cm, patch)
		if got, want := code, http.StatusUnprocessableEntity; got != want || !strings.Contains(body, `"reason":"FieldValueForbidden"`) || !strings.Contains(body, `"field":"`+field+`"`) {
			t.Errorf("%s: %d %s, want %d at %s", patch, got, body, want, field)
		}
	}
	if code, body := raw(t, srv, "PATCH", cm, `{"metadata":{"labels":{"x":"y"}}}`); code != 200 {
		t.Errorf("labels: %d %s", code, body)
	}
}

// A custom resource's scale subresource reads and writes the replicas at the
// paths its CRD names.
func TestValidate_scale_of_a_custom_resource(t *testing.T) {
	srv := apitest.NewServer(nil)
	srv.CreateNamespaces("ns")
	defer srv.Close()
	crd := strings.Replace(gearCRD, `"subresources":{"status":{}}`,
		`"subresources":{"status":{},"scale":{"specReplicasPath":".spec.replicas","statusReplicasPath":".status.replicas"}}`, 1)
	crd = strings.Replace(crd, `"phase":{"type":"string"}`, `"phase":{"type":"string"},"replicas":{"type":"integer"}`, 1)
	if code, body := raw(t, srv, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd); code != 201 {
		t.Fatalf("CRD: %d %s", code, body)
	}
	if code, body := raw(t, srv, "POST", gears, `{"apiVersion":"example.com/v1","kind":"Gear","metadata":{"name":"a"},"spec":{"replicas":2}}`); code != 201 {
		t.Fatalf("create: %d %s", code, body)
	}
	if code, body := raw(t, srv, "GET", gears+"/a/scale", ""); code != 200 || !strings.Contains(body, `"kind":"Scale"`) || !strings.Contains(body, `"spec":{"replicas":2}`) || !strings.Contains(body, `"status":{"replicas":0}`) {
		t.Errorf("GET scale: %d %s", code, body)
	}
	if code, body := raw(t, srv, "PATCH", gears+"/a/scale", `{"spec":{"replicas":5}}`); code != 200 || !strings.Contains(body, `"spec":{"replicas":5}`) {
		t.Errorf("PATCH scale: %d %s", code, body)
	}
	if code, body := raw(t, srv, "GET", gears+"/a", ""); code != 200 || !strings.Contains(body, `"replicas":5`) || !strings.Contains(body, `"generation":2`) {
		t.Errorf("after the scale: %d %s", code, body)
	}
	if code, body := raw(t, srv, "PUT", gears+"/a/scale", `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"a"},"spec":{"replicas":-1}}`); code != http.StatusUnprocessableEntity || !strings.Contains(body, `"field":".spec.replicas"`) {
		t.Errorf("PUT scale -1: %d %s", code, body)
	}
}

// A member given twice in a body is told (a warning, or 400 under Strict),
// and a built-in object given twice is the two merged, as decoded into its
// Go type.
func TestValidate_duplicate_fields(t *testing.T) {
	srv := apitest.NewServer(nil)
	srv.CreateNamespaces("ns")
	defer srv.Close()
	body := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","labels":{"x":"1"}},"metadata":{"labels":{"y":"2"}}}`
	post := func(query string) (*http.Response, string) {
		return rawResponse(t, srv, "POST", "/api/v1/namespaces/ns/configmaps"+query, "application/json", body)
	}
	if resp, out := post("?fieldValidation=Strict"); resp.StatusCode != http.StatusBadRequest || !strings.Contains(out, `duplicate field \"metadata\"`) {
		t.Errorf("Strict: %d %s", resp.StatusCode, out)
	}
	resp, out := post("")
	if got, want := resp.Header.Get("Warning"), `299 - "duplicate field \"metadata\""`; resp.StatusCode != 201 || got != want {
		t.Errorf("warning %q (%d), want %q", got, resp.StatusCode, want)
	}
	if !strings.Contains(out, `"labels":{"x":"1","y":"2"}`) {
		t.Errorf("the two metadata not merged: %s", out)
	}
}
