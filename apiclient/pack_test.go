package apiclient_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
)

func decodePod(t *testing.T, replace ...string) (*apiclient.Object, []byte) {
	t.Helper()
	pod, err := os.ReadFile("testdata/pod.json")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(replace); i += 2 {
		pod = bytes.ReplaceAll(pod, []byte(replace[i]), []byte(replace[i+1]))
	}
	o, err := apiclient.DecodeObject(pod)
	if err != nil {
		t.Fatal(err)
	}
	return o, o.Raw()
}

// A packed object reads and writes as it did: Raw, MarshalJSON, Field,
// Decode and Copy give what they gave before Pack, and it keeps a few percent
// of its body.
func TestObject_Pack_changes_what_an_object_holds_not_what_it_reads(t *testing.T) {
	ref, _ := decodePod(t)
	dict := apiclient.NewDictionary(ref)
	o, raw := decodePod(t, "load-000001", "load-004711", "value-1-3", "value-4711-3")
	before := apiclient.KeptBytes(o)
	if !o.Pack(dict) {
		t.Fatal("a pod like the dictionary's did not pack")
	}
	if got, limit := apiclient.KeptBytes(o), before/10; got > limit {
		t.Fatalf("packed, it keeps %d bytes of %d: want at most %d", got, before, limit)
	}
	if got := o.Raw(); !bytes.Equal(got, raw) {
		t.Fatalf("Raw after Pack:\n%s\nwant\n%s", got, raw)
	}
	if got, err := o.MarshalJSON(); err != nil || !bytes.Equal(got, raw) {
		t.Fatalf("MarshalJSON after Pack: %v\n%s", err, got)
	}
	if v, ok := o.FieldString("spec", "containers", "0", "env", "3", "value"); !ok || v != "value-4711-3" {
		t.Fatalf("FieldString after Pack: %q, %v", v, ok)
	}
	if v, ok := o.Field("spec", "containers", "1", "name"); !ok || v != "sidecar" {
		t.Fatalf("Field after Pack: %v, %v", v, ok)
	}
	var pod struct {
		Spec struct {
			Containers []struct {
				Image string `json:"image"`
			} `json:"containers"`
		} `json:"spec"`
	}
	if err := o.Decode(&pod); err != nil || len(pod.Spec.Containers) != 2 || pod.Spec.Containers[1].Image != "envoy:1.29" {
		t.Fatalf("Decode after Pack: %+v, %v", pod, err)
	}
	c := o.Copy()
	c.Metadata.Name = "copied"
	if got, want := c.Raw(), bytes.Replace(raw, []byte(`"name":"load-004711"`), []byte(`"name":"copied"`), 1); !bytes.Equal(got, want) {
		t.Fatalf("a packed object's Copy:\n%s\nwant\n%s", got, want)
	}
	if o.Pack(dict) {
		t.Fatal("an object packed twice")
	}
}

// Pack leaves an object whole where packing would not save a quarter of it,
// and NewDictionary refuses a body too small to be worth one.
func TestObject_Pack_keeps_unlike_and_small_objects_whole(t *testing.T) {
	ref, _ := decodePod(t)
	dict := apiclient.NewDictionary(ref)
	cm, err := apiclient.DecodeObject([]byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a"},"data":{"k":"` +
		string(bytes.Repeat([]byte("qwertyuiopasdfghjklzxcvbnm0123456789"), 20)) + `"}}`))
	if err != nil {
		t.Fatal(err)
	}
	raw := cm.Raw()
	if cm.Pack(dict) {
		t.Fatal("a ConfigMap packed against a pod")
	}
	if !bytes.Equal(cm.Raw(), raw) {
		t.Fatal("a refused Pack changed the object")
	}
	small, err := apiclient.DecodeObject([]byte(`{"metadata":{"name":"a"},"spec":{"x":1}}`))
	if err != nil {
		t.Fatal(err)
	}
	if d := apiclient.NewDictionary(small); d != nil {
		t.Fatal("a dictionary of 14 bytes")
	}
	if small.Pack(nil) {
		t.Fatal("packed against no dictionary")
	}
}
