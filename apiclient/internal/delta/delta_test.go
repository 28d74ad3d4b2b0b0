package delta_test

import (
	"bytes"
	"os"
	"runtime"
	"strings"
	"testing"
	"weak"

	"github.com/kubewire/kubewire/apiclient/internal/delta"
)

func roundTrip(t *testing.T, ref, b []byte) []byte {
	t.Helper()
	x := delta.NewIndex(ref)
	r := x.Reference()
	enc := x.AppendEncoded(nil, b)
	if got, want := delta.Size(enc), len(b); got != want {
		t.Fatalf("Size %d, want %d", got, want)
	}
	got, err := r.AppendDecoded([]byte("prefix"), enc)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	if !bytes.Equal(got, append([]byte("prefix"), b...)) {
		t.Fatalf("decoded %q\nwant      %q", got, b)
	}
	return enc
}

// Two pods of one Deployment differ in a name, a uid and a few values: one
// kept against the other takes a few percent of its bytes.
func TestEncode_keeps_an_object_like_the_reference_in_a_twentieth_of_its_bytes(t *testing.T) {
	pod, err := os.ReadFile("../../testdata/pod.json")
	if err != nil {
		t.Fatal(err)
	}
	other := bytes.ReplaceAll(pod, []byte("load-000001"), []byte("load-004711"))
	other = bytes.Replace(other, []byte(`"resourceVersion":"571"`), []byte(`"resourceVersion":"98765"`), 1)
	enc := roundTrip(t, pod, other)
	if got, limit := len(enc), len(other)/20; got > limit {
		t.Fatalf("%d bytes encoded of %d, want at most %d", got, len(other), limit)
	}
}

func TestEncode_round_trips(t *testing.T) {
	for _, c := range []struct{ ref, b string }{
		{"", ""},
		{"", "abc"},
		{"abc", ""},
		{"abcdefghij", "abcdefghij"},
		{"abcdefghij", "xxabcdefghijyy"},
		{"abcdefghij", "abcdefXghij"},
		{"0123456789abcdef", "89abcdef01234567"},
		{strings.Repeat("a", 100), strings.Repeat("a", 1000)},
		{`{"spec":{"containers":[{"name":"app"}]}}`, `{"spec":{"containers":[{"name":"app"},{"name":"sidecar"}]}}`},
	} {
		roundTrip(t, []byte(c.ref), []byte(c.b))
	}
}

// Bytes AppendEncoded did not make are an error, not a panic or a read past the
// reference.
func TestAppendDecoded_refuses_what_Encode_did_not_make(t *testing.T) {
	r := delta.NewIndex([]byte("0123456789")).Reference()
	for _, enc := range [][]byte{
		nil,
		{5},                  // a length, then nothing
		{5, 9, 'a'},          // a literal longer than what follows
		{5, 0, 5, 8},         // a copy past the reference's end
		{5, 0, 5, 200, 1},    // an offset past it
		{3, 1, 'a', 0, 9},    // bytes after the end
		{255, 255, 255, 255}, // a length cut short
		{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01},
	} {
		if _, err := r.AppendDecoded(nil, enc); err == nil {
			t.Errorf("%v decoded without an error", enc)
		}
	}
}

func FuzzRoundTrip(f *testing.F) {
	pod, _ := os.ReadFile("../../testdata/pod.json")
	f.Add(pod, bytes.ReplaceAll(pod, []byte("load"), []byte("other")))
	f.Add([]byte("abcdefgh"), []byte("abcdefghabcdefgh"))
	f.Fuzz(func(t *testing.T, ref, b []byte) {
		roundTrip(t, ref, b)
		// and whatever the bytes, decoding never panics
		_, _ = delta.NewIndex(ref).Reference().AppendDecoded(nil, b)
	})
}

// BenchmarkEncode packs a pod against another of its Deployment's, and
// BenchmarkAppendDecoded reads it back: the cost an informer pays per object
// as it enters, and a reader per unpacking.
func BenchmarkEncode(b *testing.B) {
	pod, err := os.ReadFile("../../testdata/pod.json")
	if err != nil {
		b.Fatal(err)
	}
	other := bytes.ReplaceAll(pod, []byte("load-000001"), []byte("load-004711"))
	x := delta.NewIndex(pod)
	buf := make([]byte, 0, len(other))
	b.SetBytes(int64(len(other)))
	b.ReportAllocs()
	for b.Loop() {
		x.AppendEncoded(buf[:0], other)
	}
}

func BenchmarkAppendDecoded(b *testing.B) {
	pod, err := os.ReadFile("../../testdata/pod.json")
	if err != nil {
		b.Fatal(err)
	}
	other := bytes.ReplaceAll(pod, []byte("load-000001"), []byte("load-004711"))
	x := delta.NewIndex(pod)
	r := x.Reference()
	enc := x.AppendEncoded(nil, other)
	buf := make([]byte, 0, len(other))
	b.SetBytes(int64(len(other)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.AppendDecoded(buf[:0], enc); err != nil {
			b.Fatal(err)
		}
	}
}

// What was encoded needs the Reference alone: the Index, four times the
// reference's size, is garbage once dropped.
func TestReference_outlives_its_Index(t *testing.T) {
	ref := []byte(strings.Repeat("the quick brown fox jumps over the lazy dog ", 50))
	x := delta.NewIndex(ref)
	b := append(append([]byte("A "), ref[:400]...), " B"...)
	enc := x.AppendEncoded(nil, b)
	r := x.Reference()
	gone := weak.Make(x)
	x = nil
	runtime.GC()
	if gone.Value() != nil {
		t.Fatal("the Index is alive with only its Reference held")
	}
	got, err := r.AppendDecoded(nil, enc)
	if err != nil || !bytes.Equal(got, b) {
		t.Fatalf("decoded %q, %v", got, err)
	}
}
