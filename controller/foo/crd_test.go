package foo_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/kubewire/kubewire/controller/foo"
)

// handWritten is the CRD crd.go carried, typed by hand, before it was built
// from Foo's Go type.
const handWritten = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
 "metadata":{"name":"foos.samplecontroller.k8s.io",
  "annotations":{"api-approved.kubernetes.io":"unapproved, experimental-only; sample-controller's example, not a Kubernetes API"}},
 "spec":{"group":"samplecontroller.k8s.io","scope":"Namespaced",
  "names":{"plural":"foos","singular":"foo","kind":"Foo"},
  "versions":[{"name":"v1alpha1","served":true,"storage":true,
   "subresources":{"status":{}},
   "schema":{"openAPIV3Schema":{"type":"object","properties":{
    "spec":{"type":"object","properties":{
     "deploymentName":{"type":"string"},
     "replicas":{"type":"integer","minimum":1,"maximum":10}}},
    "status":{"type":"object","properties":{
     "availableReplicas":{"type":"integer"}}}}}}}]}}`

// The CRD built from Foo's type is the hand-written one, but for what the
// server would have filled in or does not enforce: listKind (the server
// defaults it to FooList), the formats of the int32 fields (it does not check
// them), and metadata as a bare object (it checks metadata itself).
func TestCRD_is_the_hand_written_one(t *testing.T) {
	var want map[string]any
	if err := json.Unmarshal([]byte(handWritten), &want); err != nil {
		t.Fatal(err)
	}
	set := func(v any, path ...string) {
		m := want
		for _, p := range path[:len(path)-1] {
			switch next := m[p].(type) {
			case map[string]any:
				m = next
			case []any:
				m = next[0].(map[string]any)
			}
		}
		m[path[len(path)-1]] = v
	}
	root := []string{"spec", "versions", "schema", "openAPIV3Schema", "properties"}
	set("FooList", "spec", "names", "listKind")
	set("int32", append(root, "spec", "properties", "replicas", "format")...)
	set("int32", append(root, "status", "properties", "availableReplicas", "format")...)
	set(map[string]any{"type": "object"}, append(root, "metadata")...)

	b, err := json.Marshal(foo.CRD())
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		w, _ := json.Marshal(want)
		t.Errorf("the CRD built from Foo:\n%s\nwant:\n%s", b, w)
	}
}
