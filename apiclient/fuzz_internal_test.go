package apiclient

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"reflect"
	"testing"
	"testing/iotest"
)

// Differential fuzz targets for the hand-written JSON code (jsonvalid.go, frame.go,
// meta.go): each holds it to what encoding/json, or kubewire's own slower path,
// says about the same input. Seeds: the cases below and testdata/fuzz/<Target>.

// FuzzCheckValue: the validator accepts exactly what json.Valid accepts.
func FuzzCheckValue(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `"a\u00e9\n"`, `-0.5e+10`, `01`, `1.`, `{"a":[1,{"b":null}]}`, `{"a" 1}`, "\"\x01\"", `[1,]`, ` true `, `tru`, `"\u12"`} {
		f.Add([]byte(s))
	}
	f.Add(mustRead(f, "testdata/pod.json"))
	f.Fuzz(func(t *testing.T, data []byte) {
		err := checkDocument(data)
		if valid := json.Valid(data); valid != (err == nil) {
			t.Fatalf("json.Valid says %v, checkDocument says %v, for %q", valid, err, data)
		}
	})
}

// FuzzDecodeMeta: the hand decoder of metadata gives what Unmarshal (reflection,
// case-sensitive) gives, error for error and field for field.
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
		_, errGot := decodeMeta(data, &got, false)
		if (errWant == nil) != (errGot == nil) {
			t.Fatalf("Unmarshal: %v; decodeMeta: %v; input %q", errWant, errGot, data)
		}
		if errWant == nil && !reflect.DeepEqual(want, got) {
			t.Fatalf("Unmarshal gives %+v, decodeMeta %+v, for %q", want, got, data)
		}
	})
}

// FuzzFrames: a stream cut into reads at any points frames into the same values,
// with the same error, as the stream read whole; and every value framed and
// validated is one json.Decoder finds too.
func FuzzFrames(f *testing.F) {
	f.Add([]byte(`{"type":"ADDED","object":{"a":"}"}}`+"\n"+`{"type":"DELETED"} [1,2] "s" 12 true`), uint8(1))
	f.Add([]byte(`{"a":"\"}"} {"b":[{]}`), uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8) {
		whole := readFrames(newFrameReader(bytes.NewReader(data), 1<<20))
		var in io.Reader = bytes.NewReader(data)
		if chunk%2 == 1 {
			in = iotest.OneByteReader(in)
		} else {
			in = iotest.HalfReader(in)
		}
		split := readFrames(newFrameReader(in, 1<<20))
		if whole != split {
			t.Fatalf("whole: %s\nsplit: %s", whole, split)
		}
	})
}

// readFrames lists the values a frameReader gives, and the error it ends with.
func readFrames(f *frameReader) string {
	var out bytes.Buffer
	for n := 0; n < 1000; n++ {
		v, err := f.value()
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

func mustRead(f *testing.F, path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	return b
}

// checkDocument validates that data holds exactly one JSON value, with only
// whitespace around it.
func checkDocument(data []byte) error {
	i := skipSpace(data, 0)
	end, err := checkValue(data, i, 0)
	if err == errShort {
		return &syntaxError{offset: len(data), msg: "unexpected end of input"}
	}
	if err != nil {
		return err
	}
	if j := skipSpace(data, end); j < len(data) {
		return badByte(data, j, "after the top-level value")
	}
	return nil
}
