package apiclient_test

import (
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
)

// A condition as a controller declares it, with json tags, and the same struct
// without them: the pitfall Decode's doc warns about.
type condition struct {
	Type   string `json:"type"`
	Status string `json:"status"`
}

type untaggedCondition struct{ Type, Status string }

func TestObject_Decode_fills_a_struct_of_your_own(t *testing.T) {
	obj, err := apiclient.DecodeObject([]byte(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web-1","namespace":"default"},
		"spec":{"nodeName":"node-1","priority":9007199254740993},
		"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	var pod struct {
		apiclient.TypeMeta
		Metadata apiclient.ObjectMeta `json:"metadata"`
		Spec     struct {
			NodeName string `json:"nodeName"`
			Priority int64  `json:"priority"`
		} `json:"spec"`
		Status struct {
			Phase      string      `json:"phase"`
			Conditions []condition `json:"conditions"`
		} `json:"status"`
	}
	if err := obj.Decode(&pod); err != nil {
		t.Fatal(err)
	}
	if pod.Kind != "Pod" || pod.Metadata.Name != "web-1" || pod.Spec.NodeName != "node-1" || pod.Status.Phase != "Running" {
		t.Fatalf("decoded %+v", pod)
	}
	if got, want := pod.Spec.Priority, int64(9007199254740993); got != want {
		t.Fatalf("priority = %d, want %d (exact past 2^53)", got, want)
	}
	if got, want := pod.Status.Conditions, []condition{{"Ready", "True"}}; len(got) != 1 || got[0] != want[0] {
		t.Fatalf("conditions = %+v, want %+v", got, want)
	}
}

// Keys match field names exactly, as the API server reads them: an untagged
// field named Type does not receive the key "type" (encoding/json alone would
// match it case-insensitively). The fix is a json tag.
func TestObject_Decode_untagged_fields_stay_empty(t *testing.T) {
	obj, err := apiclient.DecodeObject([]byte(`{"status":{"conditions":[{"type":"Ready","status":"True"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	var untagged struct {
		Status struct {
			Conditions []untaggedCondition `json:"conditions"`
		} `json:"status"`
	}
	if err := obj.Decode(&untagged); err != nil {
		t.Fatal(err)
	}
	if got := untagged.Status.Conditions; len(got) != 1 || got[0] != (untaggedCondition{}) {
		t.Fatalf("untagged conditions = %+v, want one with empty strings", got)
	}
}

func TestObject_Decode_sees_changes_to_Metadata(t *testing.T) {
	obj, err := apiclient.DecodeObject([]byte(podJSON))
	if err != nil {
		t.Fatal(err)
	}
	c := obj.Copy()
	c.Metadata.Name = "renamed"
	var m struct {
		Metadata apiclient.ObjectMeta `json:"metadata"`
	}
	if err := c.Decode(&m); err != nil {
		t.Fatal(err)
	}
	if m.Metadata.Name != "renamed" {
		t.Fatalf("name = %q, want the changed one", m.Metadata.Name)
	}
}

func TestObject_Decode_needs_a_pointer(t *testing.T) {
	obj, err := apiclient.DecodeObject([]byte(podJSON))
	if err != nil {
		t.Fatal(err)
	}
	var v struct{}
	if err := obj.Decode(v); err == nil {
		t.Fatal("Decode into a non-pointer: nil error")
	}
}

// Raw has one meaning for every object, however the decoder kept it: the object as
// it is now. A change to Metadata after decoding shows in Raw, and the rest stays
// the server's bytes.
func TestRaw_shows_changes_to_Metadata_for_every_object(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   string
		opts apiclient.DecodeOptions
	}{
		{"metadata held as fields only", podJSON, apiclient.DecodeOptions{}},
		{"managedFields kept", podJSON, apiclient.DecodeOptions{KeepManagedFields: true}},
		{"metadata with a member ObjectMeta lacks", `{"kind":"Pod","metadata":{"name":"web-1","future":1},"spec":{"x":1}}`, apiclient.DecodeOptions{}},
		{"timestamp not in the server's form", `{"kind":"Pod","metadata":{"name":"web-1","creationTimestamp":"2026-11-22T10:00:00+01:00"},"spec":{"x":1}}`, apiclient.DecodeOptions{}},
		{"no metadata", `{"kind":"Pod","spec":{"x":1}}`, apiclient.DecodeOptions{}},
	} {
		obj, err := tt.opts.Decode([]byte(tt.in))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		obj.Metadata.Labels = map[string]string{"changed": "yes"}
		raw := string(obj.Raw())
		if !strings.Contains(raw, `"labels":{"changed":"yes"}`) {
			t.Errorf("%s: Raw does not show the change to Metadata: %s", tt.name, raw)
		}
		if spec, ok := obj.Field("spec"); !ok || spec == nil {
			t.Errorf("%s: spec lost: %s", tt.name, raw)
		}
		if labels, _ := obj.Field("metadata", "labels", "changed"); labels != "yes" {
			t.Errorf("%s: Field(metadata.labels.changed) = %v, want what Raw shows", tt.name, labels)
		}
	}
}
