package jsonwire_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"testing"
	"testing/iotest"

	"github.com/kubewire/kubewire/apiclient/internal/jsonwire"
)

// Differential fuzz targets: each holds the hand-written code to what
// encoding/json, or the same code on a differently cut input, says about the
// same bytes. Seeds: the cases below and testdata/fuzz/<Target>.

// FuzzCheckValue: the validator accepts exactly what json.Valid accepts.
func FuzzCheckValue(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `"a\u00e9\n"`, `-0.5e+10`, `01`, `1.`, `{"a":[1,{"b":null}]}`, `{"a" 1}`, "\"\x01\"", `[1,]`, ` true `, `tru`, `"\u12"`} {
		f.Add([]byte(s))
	}
	pod, err := os.ReadFile("../../testdata/pod.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(pod)
	f.Fuzz(func(t *testing.T, data []byte) {
		err := jsonwire.Valid(data)
		if valid := json.Valid(data); valid != (err == nil) {
			t.Fatalf("json.Valid says %v, Valid says %v, for %q", valid, err, data)
		}
	})
}

// FuzzFrames: a stream cut into reads at any points frames into the same values,
// with the same error, as the stream read whole; and every value framed and
// validated is one json.Valid accepts too.
func FuzzFrames(f *testing.F) {
	f.Add([]byte(`{"type":"ADDED","object":{"a":"}"}}`+"\n"+`{"type":"DELETED"} [1,2] "s" 12 true`), uint8(1))
	f.Add([]byte(`{"a":"\"}"} {"b":[{]}`), uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8) {
		whole := readFrames(jsonwire.NewReader(bytes.NewReader(data), 1<<20))
		var in io.Reader = bytes.NewReader(data)
		if chunk%2 == 1 {
			in = iotest.OneByteReader(in)
		} else {
			in = iotest.HalfReader(in)
		}
		split := readFrames(jsonwire.NewReader(in, 1<<20))
		if whole != split {
			t.Fatalf("whole: %s\nsplit: %s", whole, split)
		}
	})
}

// readFrames lists the values a Reader gives, and the error it ends with.
func readFrames(f *jsonwire.Reader) string {
	var out bytes.Buffer
	for n := 0; n < 1000; n++ {
		v, err := f.Value()
		if err != nil {
			fmt.Fprintf(&out, "end: %v", err)
			return out.String()
		}
		if !json.Valid(v) {
			return fmt.Sprintf("framed invalid JSON %q", v)
		}
		fmt.Fprintf(&out, "%q\n", v)
	}
	return out.String()
}
