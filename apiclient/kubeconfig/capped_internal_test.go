package kubeconfig

import (
	"io"
	"strings"
	"testing"
)

// A plugin's stdout is copied into capped by exec.Cmd with io.Copy, which prefers
// the destination's ReadFrom: the cap must hold on that path too, or a plugin that
// prints 400 MB is held in memory whole.
func TestCapped_holds_its_cap_through_io_Copy(t *testing.T) {
	c := &capped{max: 1 << 10}
	n, err := io.Copy(c, strings.NewReader(strings.Repeat("x", 1<<20)))
	if err != nil || n != 1<<20 {
		t.Fatalf("io.Copy = %d, %v; want all %d bytes taken", n, err, 1<<20)
	}
	if got := len(c.Bytes()); got != 1<<10 || !c.over {
		t.Fatalf("kept %d bytes (over %v), want %d and over", got, c.over, 1<<10)
	}
}
