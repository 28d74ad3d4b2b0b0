package recording_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient/recording"
)

// FuzzParse: Parse never panics, and whatever it accepts survives WriteTo and Parse
// again unchanged (after the first round, which moves trailing comments to the top).
func FuzzParse(f *testing.F) {
	f.Add(sample)
	f.Add("kubewire-recording v1\n> GET /x\n< stall\n")
	f.Add("kubewire-recording v1\n> GET /x\n< 200\n{}\n< cut 1\n# trailing\n")
	f.Fuzz(func(t *testing.T, in string) {
		rec, err := recording.Parse(strings.NewReader(in))
		if err != nil {
			return
		}
		var one, two bytes.Buffer
		if _, err := rec.WriteTo(&one); err != nil {
			t.Fatal(err)
		}
		a, err := recording.Parse(bytes.NewReader(one.Bytes()))
		if err != nil {
			t.Fatalf("written recording does not parse: %v\n%s", err, one.String())
		}
		a.WriteTo(&two)
		b, err := recording.Parse(&two)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("not stable:\n%+v\n%+v", a, b)
		}
	})
}

// FuzzRedact: Redact and RedactSecrets never panic, and keep valid JSON valid.
func FuzzRedact(f *testing.F) {
	f.Add([]byte(`{"kind":"Secret","data":{"a":"dg=="},"metadata":{"annotations":{"x":"y"}}}`))
	f.Add([]byte(`{"kind":"SecretList","items":[{"data":{"a":"b"}},1,"s",null]}`))
	f.Add([]byte(`{"type":"ADDED","object":{"kind":"Secret","stringData":{"p":"q"}}}`))
	f.Add([]byte(`[{"password":["a",{"token":"b"}]}]`))
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, redact := range []func([]byte) []byte{recording.Redact, recording.RedactSecrets} {
			out := redact(in)
			if json.Valid(in) && !json.Valid(out) {
				t.Fatalf("valid JSON became invalid:\n%s\n%s", in, out)
			}
		}
	})
}
