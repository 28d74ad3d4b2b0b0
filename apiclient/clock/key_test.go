package clock_test

import (
	"testing"

	"github.com/kubewire/kubewire/apiclient/clock"
)

func TestObjectKey(t *testing.T) {
	for _, tt := range []struct{ ns, name, want string }{
		{"default", "web-1", "default/web-1"},
		{"", "node-1", "node-1"},
	} {
		if got := clock.ObjectKey(tt.ns, tt.name); got != tt.want {
			t.Fatalf("ObjectKey(%q, %q) = %q, want %q", tt.ns, tt.name, got, tt.want)
		}
	}
}
