package metrics_test

import (
	"strings"
	"testing"

	"github.com/kubewire/kubewire/controller/metrics"
)

// render returns the registry's page.
func render(t testing.TB, reg *metrics.Registry) string {
	t.Helper()
	var b strings.Builder
	n, err := reg.WriteTo(&b)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := n, int64(b.Len()); got != want {
		t.Fatalf("WriteTo reported %d bytes, wrote %d", got, want)
	}
	return b.String()
}

// mustPanic runs f and fails the test unless it panics with a message containing
// want.
func mustPanic(t *testing.T, want string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if r == nil {
			t.Fatalf("no panic, want one saying %q", want)
		}
		if msg, _ := r.(string); !strings.Contains(msg, want) {
			t.Fatalf("panic %v, want one saying %q", r, want)
		}
	}()
	f()
}
