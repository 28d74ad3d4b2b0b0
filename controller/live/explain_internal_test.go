package live

import (
	"os"
	"path/filepath"
	"testing"
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
