package jsonwire_test

import (
	"os"
	"testing"

	"github.com/kubewire/kubewire/apiclient/internal/jsonwire"
)

// BenchmarkValid validates the recorded 5.2 KB pod: the walker alone, the part of
// every decode that looks at each byte.
func BenchmarkValid(b *testing.B) {
	pod, err := os.ReadFile("../../testdata/pod.json")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(pod)))
	for b.Loop() {
		if err := jsonwire.Valid(pod); err != nil {
			b.Fatal(err)
		}
	}
}
