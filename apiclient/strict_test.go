package apiclient_test

import (
	"encoding/json"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
)

type replicaSpec struct {
	Replicas int64          `json:"replicas"`
	Extra    map[string]any `json:"extra"`
	Nested   *struct {
		Name string `json:"name"`
	} `json:"nested"`
	Items []struct {
		ID int64 `json:"id"`
	} `json:"items"`
	NoTag string
}

type withEmbedded struct {
	apiclient.TypeMeta
	Metadata apiclient.ObjectMeta `json:"metadata"`
}

func TestUnmarshal_matches_keys_case_sensitively(t *testing.T) {
	var v replicaSpec
	in := `{"Replicas":5,"replicas":3,"nested":{"NAME":"no","name":"yes"},"items":[{"ID":1},{"id":2}],"notag":"x","NoTag":"y"}`
	if err := apiclient.Unmarshal([]byte(in), &v); err != nil {
		t.Fatal(err)
	}
	if v.Replicas != 3 || v.Nested.Name != "yes" || v.Items[0].ID != 0 || v.Items[1].ID != 2 || v.NoTag != "y" {
		t.Fatalf("got %+v", v)
	}
	// encoding/json alone would have put "Replicas":5 into Replicas when "replicas" is absent:
	var std, ours replicaSpec
	_ = json.Unmarshal([]byte(`{"Replicas":5}`), &std)
	_ = apiclient.Unmarshal([]byte(`{"Replicas":5}`), &ours)
	if std.Replicas != 5 || ours.Replicas != 0 {
		t.Fatalf("encoding/json %d, Unmarshal %d: want 5 and 0", std.Replicas, ours.Replicas)
	}
}

func TestUnmarshal_keeps_integer_precision(t *testing.T) {
	var v replicaSpec
	if err := apiclient.Unmarshal([]byte(`{"replicas":9223372036854775807,"extra":{"big":9007199254740993}}`), &v); err != nil {
		t.Fatal(err)
	}
	if v.Replicas != 9223372036854775807 {
		t.Fatalf("replicas = %d", v.Replicas)
	}
	if got := v.Extra["big"]; got != json.Number("9007199254740993") {
		t.Fatalf("extra.big = %#v, want json.Number 9007199254740993", got)
	}
}

func TestUnmarshal_follows_embedded_structs_and_Unmarshalers(t *testing.T) {
	var v withEmbedded
	in := `{"apiVersion":"v1","Kind":"no","kind":"Pod","metadata":{"name":"a","creationTimestamp":"2026-11-22T09:13:14Z"}}`
	if err := apiclient.Unmarshal([]byte(in), &v); err != nil {
		t.Fatal(err)
	}
	if v.APIVersion != "v1" || v.Kind != "Pod" || v.Metadata.Name != "a" || v.Metadata.CreationTimestamp.Year() != 2026 {
		t.Fatalf("got %+v", v)
	}
}

func TestUnmarshal_errors(t *testing.T) {
	var v replicaSpec
	for _, in := range []string{`{`, `{"replicas":"x"}`, `{} {}`, ``} {
		if err := apiclient.Unmarshal([]byte(in), &v); err == nil {
			t.Errorf("Unmarshal(%q) = nil error", in)
		}
	}
	if err := apiclient.Unmarshal([]byte(`{}`), v); err == nil {
		t.Error("Unmarshal into a non-pointer = nil error")
	}
}
