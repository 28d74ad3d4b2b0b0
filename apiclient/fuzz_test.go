package apiclient_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
)

// The fuzz targets feed arbitrary bytes to every parser of outside input in this
// package. Seeds live in testdata/fuzz/<Target>; run one with, for example,
//
//	go test ./apiclient -run '^$' -fuzz FuzzDecodeObject -fuzztime 60s

// FuzzDecodeObject: any bytes give an Object or an error, never a panic; an Object's
// Raw is valid JSON without managedFields, and it survives a MarshalJSON round trip.
func FuzzDecodeObject(f *testing.F) {
	f.Add([]byte(podJSON))
	f.Add([]byte(`{"metadata":{"managedFields":[],"Name":"x"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		obj, err := apiclient.DecodeObject(data)
		if err != nil {
			return
		}
		if !json.Valid(obj.Raw()) {
			t.Fatalf("raw is not JSON: %q", obj.Raw())
		}
		if obj.Metadata.ManagedFields != nil {
			t.Fatal("managedFields kept")
		}
		b, err := json.Marshal(obj)
		if err != nil {
			t.Fatalf("MarshalJSON: %v", err)
		}
		back, err := apiclient.DecodeObject(b)
		if err != nil {
			t.Fatalf("decode of MarshalJSON output %q: %v", b, err)
		}
		if back.Key() != obj.Key() || back.Metadata.ResourceVersion != obj.Metadata.ResourceVersion {
			t.Fatalf("round trip changed %s into %s", obj, back)
		}
		_, _ = obj.Field("spec", "containers", "0", "image")
	})
}

// FuzzWatchStream: any body of a watch response ends in io.EOF or an error after a
// finite number of events, never a panic or a hang.
func FuzzWatchStream(f *testing.F) {
	f.Add([]byte(event("ADDED", "a", "1") + event("MODIFIED", "a", "2")))
	f.Add([]byte(`{"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired"}}`))
	f.Add([]byte(`{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"5","annotations":{"k8s.io/initial-events-end":"true"}}}}`))
	var body atomic.Pointer[[]byte]
	c, _ := newServer(f, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		_, _ = w.Write(*body.Load())
	})
	f.Fuzz(func(t *testing.T, data []byte) {
		body.Store(&data)
		w, err := c.Resource(apiclient.Pods).Watch(context.Background(), apiclient.WatchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		for i := 0; i <= len(data); i++ {
			ev, err := w.Next()
			if err != nil {
				return
			}
			if ev.Type != apiclient.Error && ev.Object == nil {
				t.Fatalf("event %q without object", ev.Type)
			}
		}
		t.Fatalf("more events than bytes in %q", data)
	})
}

// FuzzDecodeList: any LIST body is decoded or refused, never a panic.
func FuzzDecodeList(f *testing.F) {
	f.Add([]byte(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"9","continue":"x"},"items":[` + podJSON + `]}`))
	f.Add([]byte(`{"items":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var header apiclient.List
		n := 0
		_ = apiclient.DecodeList(bytes.NewReader(data), apiclient.DecodeOptions{}, &header, func(o *apiclient.Object) error {
			n++
			if !json.Valid(o.Raw()) {
				t.Fatalf("item %d raw is not JSON", n)
			}
			return nil
		})
	})
}

// FuzzStatusError: any error body gives a one-line error that keeps the code.
func FuzzStatusError(f *testing.F) {
	f.Add(404, []byte(statusBody(404, "NotFound", `pods "x" not found`)))
	f.Add(502, []byte("<html><body><h1>502 Bad Gateway</h1></body></html>"))
	f.Add(500, []byte{})
	f.Fuzz(func(t *testing.T, code int, body []byte) {
		if code < 300 || code > 599 {
			return
		}
		err := apiclient.ErrorFromResponse(code, body)
		if apiclient.CodeOf(err) == 0 {
			t.Fatalf("code lost: %v", err)
		}
		if se := err.(*apiclient.StatusError); se.Body != "" && strings.ContainsAny(se.Body, "\n\r") {
			t.Fatalf("body not on one line: %q", se.Body)
		}
	})
}

// FuzzUnmarshal: the strict decoder never panics and agrees with encoding/json on
// what is valid JSON.
func FuzzUnmarshal(f *testing.F) {
	f.Add([]byte(`{"replicas":3,"Replicas":4,"extra":{"a":[1,2.5,"x",null,true]},"items":[{"id":1}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var v replicaSpec
		err := apiclient.Unmarshal(data, &v)
		if err == nil && !json.Valid(data) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
	})
}
