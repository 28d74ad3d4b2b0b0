package apitest_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient/apitest"
)

const applyCT = "application/apply-patch+yaml"

// fieldsOf is the fieldsV1 of manager's managedFields entry in body, as JSON.
func fieldsOf(t *testing.T, body, manager string) string {
	t.Helper()
	var o struct {
		Metadata struct {
			ManagedFields []struct {
				Manager  string
				FieldsV1 json.RawMessage
			}
		}
	}
	if err := json.Unmarshal([]byte(body), &o); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	for _, e := range o.Metadata.ManagedFields {
		if e.Manager == manager {
			return string(e.FieldsV1)
		}
	}
	return ""
}

// A Service's ports are a list keyed by port and protocol in the recorded
// schemas: two managers' applies merge them item by item, and a strategic
// merge patch merges by port, where both replaced the list before.
func TestMergeRules_service_ports_are_keyed(t *testing.T) {
	srv := apitest.NewServer(nil)
	defer srv.Close()
	const svc = "/api/v1/namespaces/default/services/s"
	port := func(p int, target int) string {
		return `{"name":"p` + strconv.Itoa(p) + `","port":` + strconv.Itoa(p) + `,"protocol":"TCP","targetPort":` + strconv.Itoa(target) + `}`
	}
	body := func(ports ...string) string {
		return `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s"},"spec":{"ports":[` + strings.Join(ports, ",") + `]}}`
	}
	if code, out := rawCT(t, srv, "PATCH", svc+"?fieldManager=alice", applyCT, body(port(80, 80))); code != 201 {
		t.Fatalf("alice: %d %s", code, out)
	}
	code, out := rawCT(t, srv, "PATCH", svc+"?fieldManager=bob", applyCT, body(port(81, 81)))
	if code != 200 {
		t.Fatalf("bob: %d %s", code, out)
	}
	if got, want := portsOf(t, out), "80,81"; got != want {
		t.Errorf("after both applies: ports %s, want %s", got, want)
	}
	if got, want := fieldsOf(t, out, "bob"), `{"f:spec":{"f:ports":{"k:{\"port\":81,\"protocol\":\"TCP\"}":{".":{},"f:name":{},"f:port":{},"f:protocol":{},"f:targetPort":{}}}}}`; got != want {
		t.Errorf("bob owns\n %s, want\n %s", got, want)
	}
	// Bob changing alice's port conflicts on that port's field alone.
	code, out = rawCT(t, srv, "PATCH", svc+"?fieldManager=bob", applyCT, body(port(80, 8080), port(81, 81)))
	if reason, causes := status(t, out); code != 409 || reason != "Conflict" || strings.Join(causes, ",") != `FieldManagerConflict:.spec.ports[port=80,protocol="TCP"].targetPort` {
		t.Errorf("bob over alice's port: %d %s %v", code, reason, causes)
	}
	code, out = rawCT(t, srv, "PATCH", svc, "application/strategic-merge-patch+json", `{"spec":{"ports":[`+port(82, 82)+`]}}`)
	// (The patch's items first: kube-apiserver v1.37.2 answers 82,80,81.)
	if got, want := portsOf(t, out), "82,80,81"; code != 200 || got != want {
		t.Errorf("strategic merge: %d ports %s, want %s", code, got, want)
	}
}

func portsOf(t *testing.T, body string) string {
	t.Helper()
	var o struct {
		Spec struct{ Ports []struct{ Port int } }
	}
	if err := json.Unmarshal([]byte(body), &o); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	var ps []string
	for _, p := range o.Spec.Ports {
		ps = append(ps, strconv.Itoa(p.Port))
	}
	return strings.Join(ps, ",")
}

// A struct that is a pointer in the Go type, or any struct inside a new list
// item, is owned with its "." entry; one that is no pointer, at a place the
// object already had, only through its members (the recorded schemas say
// which: its default is {}).
func TestMergeRules_new_structs_are_owned_themselves(t *testing.T) {
	srv := apitest.NewServer(nil)
	defer srv.Close()
	code, out := raw(t, srv, "POST", "/api/v1/namespaces/default/pods",
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":"1"}}}]}}`)
	if code != 201 {
		t.Fatalf("create: %d %s", code, out)
	}
	if got, want := fieldsOf(t, out, "Go-http-client"), `{"f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{".":{},"f:image":{},"f:name":{},"f:resources":{".":{},"f:requests":{".":{},"f:cpu":{}}}}}}}`; got != want {
		t.Errorf("the creator owns\n %s, want\n %s", got, want)
	}
}

// An ownerReference is one atomic item (x-kubernetes-map-type atomic): a
// second manager applying the reference another owns, with controller set,
// conflicts on the item, not on its controller field.
func TestMergeRules_owner_references_are_atomic_items(t *testing.T) {
	srv := apitest.NewServer(nil)
	defer srv.Close()
	const cm = "/api/v1/namespaces/default/configmaps/a"
	ref := func(controller string) string {
		return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"o","uid":"u1"` + controller + `}]}}`
	}
	code, out := rawCT(t, srv, "PATCH", cm+"?fieldManager=alice", applyCT, ref(""))
	if code != 201 {
		t.Fatalf("alice: %d %s", code, out)
	}
	if got, want := fieldsOf(t, out, "alice"), `{"f:metadata":{"f:ownerReferences":{"k:{\"uid\":\"u1\"}":{}}}}`; got != want {
		t.Errorf("alice owns\n %s, want\n %s", got, want)
	}
	code, out = rawCT(t, srv, "PATCH", cm+"?fieldManager=bob", applyCT, ref(`,"controller":true`))
	if reason, causes := status(t, out); code != 409 || reason != "Conflict" || strings.Join(causes, ",") != `FieldManagerConflict:.metadata.ownerReferences[uid="u1"]` {
		t.Errorf("bob: %d %s %v", code, reason, causes)
	}
}
