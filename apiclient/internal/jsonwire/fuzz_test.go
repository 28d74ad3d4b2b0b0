package jsonwire_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
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

// FuzzWalk: Walk, cut into reads at any points, gives the values Frame and
// CheckValue give on the stream read whole, and fails where they fail: the one
// pass over a value that is whole in the buffer accepts exactly what framing
// then validating accepts.
func FuzzWalk(f *testing.F) {
	f.Add([]byte(`{"type":"ADDED","object":{"a":"}"}}`+"\n"+`{"type":"DELETED"} [1,2] "s" 12 true`), uint8(1))
	f.Add([]byte(`{"a":"\"}"} {"b":[{]}`), uint8(2))
	f.Add([]byte(`[{"a":1},{"b":[true,null]}] {"a":1`), uint8(5))
	f.Add([]byte(`{"a":"`+strings.Repeat("x", 100)+`\u00e9"} {}`), uint8(7))
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8) {
		whole := readFrames(jsonwire.NewReader(bytes.NewReader(data), 1<<20))
		var in io.Reader = bytes.NewReader(data)
		switch chunk % 3 {
		case 0:
			in = iotest.OneByteReader(in)
		case 1:
			in = iotest.HalfReader(in)
		}
		walked := walkValues(jsonwire.NewReaderSize(in, 1+int(chunk)%64, 1<<20))
		if clean(whole) != clean(walked) {
			t.Fatalf("Frame + CheckValue: %s\nWalk: %s", whole, walked)
		}
	})
}

// walkValues lists the values Walk gives, validating with CheckValue, and the
// error it ends with.
func walkValues(f *jsonwire.Reader) string {
	var out bytes.Buffer
	for n := 0; n < 1000; n++ {
		var v []byte
		at, err := f.Walk(func(data []byte) (int, error) {
			end, err := jsonwire.CheckValue(data, 0, 0)
			v = data[:end]
			return end, err
		})
		if err != nil {
			fmt.Fprintf(&out, "end: %v", jsonwire.Locate(err, at))
			return out.String()
		}
		fmt.Fprintf(&out, "%q\n", v)
	}
	return out.String()
}

// clean is a list of values with its last line cut to whether it ended the
// stream cleanly: Walk finds malformed JSON at its first bad byte, where Frame
// may read on to the bracket that would have closed it, so the two name
// different bytes.
func clean(frames string) string {
	i := strings.LastIndex(frames, "end: ")
	if i < 0 {
		return frames
	}
	return frames[:i] + fmt.Sprint("EOF: ", frames[i:] == "end: EOF")
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

// The scan of strings (checkString) agrees with encoding/json for every byte at
// every position of a long string, after a plain byte, a non-ASCII one and a
// backslash.
func TestCheckValue_every_byte_at_every_position_of_a_long_string(t *testing.T) {
	for pos := 0; pos < 20; pos++ {
		for b := 0; b < 256; b++ {
			for _, around := range []byte{'a', 0xe9, '\\'} {
				s := bytes.Repeat([]byte{'a'}, 20)
				s[pos] = byte(b)
				if pos > 0 {
					s[pos-1] = around
				}
				lit := append(append([]byte{'"'}, s...), '"')
				err := jsonwire.Valid(lit)
				if valid := json.Valid(lit); valid != (err == nil) {
					t.Fatalf("json.Valid says %v, Valid says %v, for %q", valid, err, lit)
				}
			}
		}
	}
}
