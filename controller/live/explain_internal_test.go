package live

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/controller/trace"
)

// Every kind of hop is explained, and the file named is one a reader can open:
// the page's "which file does it" must not rot when files move.
func TestExplain_names_a_file_that_exists_for_every_kind_of_hop(t *testing.T) {
	events := append(DemoEvents(), MoreEvents()...)
	for _, deltaFIFO := range []bool{false, true} {
		h := New(Options{DeltaFIFO: deltaFIFO})
		for _, e := range events {
			h.Trace(e)
		}
		h.mu.Lock()
		for seq := uint64(1); seq <= h.seq; seq++ {
			hop := h.readLocked(seq)
			if hop.What == "" || hop.File == "" {
				t.Errorf("%q: no explanation (what %q, file %q)", hop.Line, hop.What, hop.File)
				continue
			}
			if _, err := os.Stat(filepath.Join("..", "..", hop.File)); err != nil {
				t.Errorf("%q names %s: %v", hop.Line, hop.File, err)
			}
		}
		h.mu.Unlock()
	}
}

// A hop carries its Event's stage, verb, key and cause, and its line is the
// Event's: nothing is read back from the text.
func TestHop_is_made_of_the_Events_fields(t *testing.T) {
	for _, e := range append(DemoEvents(), MoreEvents()...) {
		h := hopOf(e)
		if h.Stage != string(e.Stage) || h.Verb != e.Verb || h.Key != e.Key || h.From != e.From || h.Line != e.String() {
			t.Errorf("hopOf(%q) = %+v", e.String(), h)
		}
	}
}

// A stale skip is explained as what it is — the cache behind the
// controller's own write — not as a reconcile that returned.
func TestExplain_a_stale_skip_says_whose_write_the_cache_lacks(t *testing.T) {
	e := trace.Event{Stage: trace.Controller, Verb: "reconcile", Key: "demo/tools", Outcome: "stale", Informer: "deployments.apps", ResourceVersion: "14", Awaited: "rv 15"}
	what, file := explain(e)
	if !strings.Contains(what, "deployments.apps does not show yet what this controller wrote") || file != "controller/staleguard.go" {
		t.Fatalf("explain(%q) = %q, %s", e, what, file)
	}
	if got, want := e.String(), "controller reconcile demo/tools skipped: cache deployments.apps at rv=14 does not show this controller's own write (rv 15) yet; again in 0s"; got != want {
		t.Fatalf("line %q, want %q", got, want)
	}
}
