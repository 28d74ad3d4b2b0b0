package apiclient_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
)

func TestDecodeObject_types_metadata_and_keeps_the_body(t *testing.T) {
	obj, err := apiclient.DecodeObject([]byte(podJSON))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := obj.String(), "Pod default/web-1 rv=101"; got != want {
		t.Fatalf("String() = %q, want %q", got, want)
	}
	if got, want := obj.Metadata.Generation, int64(9007199254740993); got != want {
		t.Fatalf("generation = %d, want %d (exact beyond 2^53)", got, want)
	}
	if got, want := obj.Metadata.Labels["app"], "web"; got != want {
		t.Fatalf("label app = %q, want %q", got, want)
	}
	if got, _ := obj.FieldString("spec", "containers", "0", "image"); got != "nginx:1.27" {
		t.Fatalf("spec.containers[0].image = %q", got)
	}
}

func TestDecodeObject_drops_managedFields_from_metadata_and_raw(t *testing.T) {
	obj, err := apiclient.DecodeObject([]byte(podJSON))
	if err != nil {
		t.Fatal(err)
	}
	if obj.Metadata.ManagedFields != nil {
		t.Fatalf("ManagedFields = %v, want dropped", obj.Metadata.ManagedFields)
	}
	raw := string(obj.Raw())
	if strings.Contains(raw, "managedFields") || !json.Valid(obj.Raw()) {
		t.Fatalf("raw still has managedFields or is invalid: %s", raw)
	}
	want := strings.Replace(podJSON, `,"managedFields":[{"manager":"kubectl","operation":"Update","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{}}}]`, "", 1)
	if raw != want {
		t.Fatalf("raw = %s\nwant  %s", raw, want)
	}
}

func TestDecodeObject_cuts_managedFields_wherever_it_stands(t *testing.T) {
	for _, meta := range []string{
		`{"managedFields":[],"name":"a"}`,
		`{"name":"a","managedFields":[]}`,
		`{"name":"a", "managedFields" : [] , "uid":"u"}`,
		`{"managedFields":[]}`,
	} {
		obj, err := apiclient.DecodeObject([]byte(`{"metadata":` + meta + `}`))
		if err != nil {
			t.Fatalf("%s: %v", meta, err)
		}
		if strings.Contains(string(obj.Raw()), "managedFields") || !json.Valid(obj.Raw()) {
			t.Fatalf("%s: raw = %s", meta, obj.Raw())
		}
	}
}

func TestDecodeOptions_KeepManagedFields(t *testing.T) {
	obj, err := apiclient.DecodeOptions{KeepManagedFields: true}.Decode([]byte(podJSON))
	if err != nil {
		t.Fatal(err)
	}
	if got := len(obj.Metadata.ManagedFields); got != 1 || obj.Metadata.ManagedFields[0].Manager != "kubectl" {
		t.Fatalf("ManagedFields = %+v", obj.Metadata.ManagedFields)
	}
	if string(obj.Raw()) != podJSON {
		t.Fatalf("raw changed: %s", obj.Raw())
	}
}

func TestDecodeObject_matches_metadata_keys_case_sensitively(t *testing.T) {
	obj, err := apiclient.DecodeObject([]byte(`{"metadata":{"Name":"wrong","name":"right","Labels":{"x":"y"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if obj.Metadata.Name != "right" || obj.Metadata.Labels != nil {
		t.Fatalf("metadata = %+v: keys that differ only in case must be ignored", obj.Metadata)
	}
	obj, err = apiclient.DecodeObject([]byte(`{"metadata":{"NAME":"wrong"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if obj.Metadata.Name != "" {
		t.Fatalf("name = %q from key NAME", obj.Metadata.Name)
	}
}

func TestDecodeObject_rejects_bad_input_with_the_offset(t *testing.T) {
	for _, in := range []string{``, `{`, `{"metadata":{"name":"a"}`, `[1,2]`, `{"metadata":"x"}`, `{"kind":7}`, `<html>oops</html>`} {
		_, err := apiclient.DecodeObject([]byte(in))
		if err == nil {
			t.Fatalf("DecodeObject(%q) = nil error", in)
		}
		if strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), "decode object: ") {
			t.Fatalf("DecodeObject(%q) error %q: want one line starting 'decode object: '", in, err)
		}
	}
}

func TestObject_Copy_then_MarshalJSON_sends_the_changed_metadata(t *testing.T) {
	obj, err := apiclient.DecodeObject([]byte(podJSON))
	if err != nil {
		t.Fatal(err)
	}
	c := obj.Copy()
	c.Metadata.Labels["app"] = "changed"
	if obj.Metadata.Labels["app"] != "web" {
		t.Fatal("Copy shares the labels map with the original")
	}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	back, err := apiclient.DecodeObject(b)
	if err != nil {
		t.Fatal(err)
	}
	if back.Metadata.Labels["app"] != "changed" || back.Metadata.Name != "web-1" || back.Kind != "Pod" {
		t.Fatalf("round trip lost data: %s", b)
	}
	if phase, _ := back.FieldString("status", "phase"); phase != "Running" {
		t.Fatalf("status.phase = %q after round trip", phase)
	}
}

func TestObject_Field(t *testing.T) {
	obj, err := apiclient.DecodeObject([]byte(podJSON))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path []string
		want string // JSON of the value, "" when absent
	}{
		{[]string{"spec", "nodeName"}, `"node-1"`},
		{[]string{"metadata", "generation"}, `9007199254740993`},
		{[]string{"spec", "containers", "0", "name"}, `"nginx"`},
		{[]string{"spec", "containers", "1"}, ``},
		{[]string{"spec", "containers", "x"}, ``},
		{[]string{"spec", "missing"}, ``},
		{[]string{"status"}, `{"phase":"Running"}`},
	}
	for _, tt := range tests {
		v, ok := obj.Field(tt.path...)
		got := ""
		if ok {
			b, _ := json.Marshal(v)
			got = string(b)
		}
		if got != tt.want {
			t.Errorf("Field(%q) = %s, want %s", tt.path, got, tt.want)
		}
	}
}

func TestZeroObject_is_empty(t *testing.T) {
	var o apiclient.Object
	if string(o.Raw()) != "{}" || o.Key() != "" {
		t.Fatalf("zero Object: raw %s key %q", o.Raw(), o.Key())
	}
	if _, err := json.Marshal(&o); err != nil {
		t.Fatal(err)
	}
}

// The cache keeps most objects' metadata decoded only, and Raw writes it back:
// for a pod as kube-apiserver 1.32 wrote it, Raw must give the server's bytes
// exactly, less managedFields.
func TestRaw_gives_the_servers_bytes_without_managedFields(t *testing.T) {
	pod := strings.TrimSpace(readFile(t, "testdata/pod.json"))
	cutFrom := strings.Index(pod, `,"managedFields":`)
	cutTo := strings.Index(pod, `},"spec":`) // managedFields is metadata's last member
	if cutFrom < 0 || cutTo < cutFrom {
		t.Fatal("testdata/pod.json is not laid out as this test expects")
	}
	want := pod[:cutFrom] + pod[cutTo:]
	obj, err := apiclient.DecodeObject([]byte(pod))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(obj.Raw()); got != want {
		t.Fatalf("Raw() differs from the server's bytes\n got: %s\nwant: %s", got, want)
	}
}

// Every object in the recordings from the real server (LIST items and watch
// events) comes back from Raw meaning what the server sent, less managedFields.
// A metadata member the server wrote as null (creationTimestamp of a stub object)
// is left out: Raw writes Metadata, where null and absent are the same.
func TestRaw_of_recorded_objects_means_what_the_server_sent(t *testing.T) {
	files, _ := filepath.Glob("../testdata/scenarios/*.rec")
	if len(files) == 0 {
		t.Fatal("no recordings in ../testdata/scenarios")
	}
	checked := 0
	for _, file := range files {
		for _, line := range strings.Split(readFile(t, file), "\n") {
			var objects []json.RawMessage
			var event struct {
				Type   string
				Object json.RawMessage
			}
			var list struct{ Items []json.RawMessage }
			switch {
			case strings.HasPrefix(line, `{"type":`) && json.Unmarshal([]byte(line), &event) == nil && event.Type != "ERROR":
				objects = append(objects, event.Object)
			case strings.HasPrefix(line, `{"kind":"PodList"`) && json.Unmarshal([]byte(line), &list) == nil:
				objects = list.Items
			}
			for _, raw := range objects {
				obj, err := apiclient.DecodeObject(raw)
				if err != nil {
					t.Fatalf("%s: %v", file, err)
				}
				want := genericJSON(t, raw)
				if md, ok := want["metadata"].(map[string]any); ok {
					delete(md, "managedFields")
					for k, v := range md {
						if v == nil {
							delete(md, k)
						}
					}
				}
				if got := genericJSON(t, obj.Raw()); !reflect.DeepEqual(got, want) {
					t.Fatalf("%s: Raw() of %s\n got: %v\nwant: %v", file, obj, got, want)
				}
				checked++
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d objects checked", checked)
	}
	t.Logf("%d recorded objects checked", checked)
}

func genericJSON(t *testing.T, data []byte) map[string]any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%v in %s", err, data)
	}
	return v
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Field reads from the bytes kept, and from the decoded metadata written back, alike.
func TestField_reads_metadata_and_the_rest(t *testing.T) {
	obj, err := apiclient.DecodeObject([]byte(strings.TrimSpace(readFile(t, "testdata/pod.json"))))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path []string
		want string
	}{
		{[]string{"metadata", "name"}, "load-000001"},
		{[]string{"metadata", "labels", "app"}, "nginx"},
		{[]string{"kind"}, "Pod"},
		{[]string{"spec", "containers", "0", "image"}, "nginx:1.21.4"},
		{[]string{"status", "phase"}, "Pending"},
	} {
		if got, ok := obj.FieldString(c.path...); !ok || got != c.want {
			t.Errorf("Field(%q) = %q, %v; want %q", c.path, got, ok, c.want)
		}
	}
	if _, ok := obj.Field("metadata", "managedFields"); ok {
		t.Error("managedFields is still there")
	}
}

// Reuse sees the object validated, its metadata decoded and its bytes not yet
// copied, and what it returns is the result; nil lets the decode finish. Invalid
// JSON never reaches it.
func TestDecodeOptions_Reuse(t *testing.T) {
	pod := []byte(strings.TrimSpace(readFile(t, "testdata/pod.json")))
	held := &apiclient.Object{}
	var seen *apiclient.Object
	opts := apiclient.DecodeOptions{Reuse: func(o *apiclient.Object) *apiclient.Object {
		seen = o
		return held
	}}
	got, err := opts.Decode(pod)
	if err != nil {
		t.Fatal(err)
	}
	if got != held {
		t.Fatalf("Decode returned %p, not what Reuse returned", got)
	}
	if _, copied := seen.FieldString("status", "phase"); seen.Key() != "bench-sample/load-000001" || seen.Metadata.ResourceVersion != "571" || copied {
		t.Fatalf("Reuse saw %s rv=%q, status copied: %v; want the metadata alone", seen.Key(), seen.Metadata.ResourceVersion, copied)
	}
	opts.Reuse = func(*apiclient.Object) *apiclient.Object { return nil }
	if got, err := opts.Decode(pod); err != nil || got == held || len(got.Raw()) == 0 {
		t.Fatalf("with Reuse returning nil: %v, %v", got, err)
	}
	seen = nil
	opts.Reuse = func(o *apiclient.Object) *apiclient.Object { seen = o; return nil }
	if _, err := opts.Decode(pod[:len(pod)-1]); err == nil || seen != nil {
		t.Fatalf("a cut pod: err %v, Reuse called %v", err, seen != nil)
	}
}
