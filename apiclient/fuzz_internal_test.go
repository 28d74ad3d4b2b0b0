package apiclient

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/kubewire/kubewire/apiclient/internal/jsonwire"
)

// A differential fuzz target for the hand-written metadata decoder (meta.go, as
// decodeAt runs it): it must say what Unmarshal, reflection and
// all, says about the same input. Seeds: the cases below and
// testdata/fuzz/FuzzDecodeMeta. The validator and the framing have theirs in
// internal/jsonwire.

// FuzzDecodeMeta: the production metadata decoder gives what Unmarshal
// (reflection, case-sensitive) gives, error for error and field for field.
func FuzzDecodeMeta(f *testing.F) {
	for _, s := range []string{
		`{"name":"a","namespace":"ns","uid":"u","resourceVersion":"5","generation":3,"labels":{"app":"web","x":null},"annotations":{"k":"v"}}`,
		`{"name":"a","name":null,"Name":"b","labels":{"a":"1"},"labels":{"b":"2"}}`,
		`{"creationTimestamp":"2026-11-22T09:54:22Z","deletionTimestamp":null,"deletionGracePeriodSeconds":30}`,
		`{"generation":1.0}`, `{"generation":"1"}`, `{"labels":{"a":1}}`, `{"name":"caf\u00e9","labels":{"\u0061pp":"\u00ff\xff"}}`,
		`{"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"r","uid":"u","controller":true}],"finalizers":["f"]}`,
		`null`, `5`, `{"creationTimestamp":"yesterday"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		var want, got ObjectMeta
		errWant := Unmarshal(data, &want)
		errGot := scanMeta(data, &got)
		if (errWant == nil) != (errGot == nil) {
			t.Fatalf("Unmarshal: %v; scanMeta: %v; input %q", errWant, errGot, data)
		}
		if errWant == nil && !reflect.DeepEqual(want, got) {
			t.Fatalf("Unmarshal gives %+v, scanMeta %+v, for %q", want, got, data)
		}
	})
}

// scanMeta runs the production metadata decoder (metaDecoder.decode, as
// decodeAt calls it for an object's "metadata" member) on a whole document.
func scanMeta(data []byte, m *ObjectMeta) error {
	d := metaDecoder{m: m}
	end, err := d.decode(data, jsonwire.SkipSpace(data, 0))
	return jsonwire.Whole(data, end, err)
}
