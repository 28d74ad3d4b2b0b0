package live

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every kind of hop is explained, and the file named is one a reader can open:
// the page's "which file does it" must not rot when files move.
func TestExplain_names_a_file_that_exists_for_every_kind_of_hop(t *testing.T) {
	b, err := os.ReadFile("testdata/demo.trace")
	if err != nil {
		t.Fatal(err)
	}
	lines := append(strings.Split(strings.TrimSpace(string(b)), "\n"),
		`listwatch LIST   rv="" limit=500 page=1`, "listwatch ITEM   demo/web-1 rv=4", "listwatch CLOSED rv=9 events=3",
		"listwatch ERROR  410 Expired → relist", "listwatch IDLE   no event for 5m0s", "listwatch FALLBACK no initial-events-end",
		"listwatch BACKOFF 1s", "listwatch SKIP   unknown event type", "fifo resync handlers=1",
		"queue dedup demo/tools depth=1 from=demo/web-2 (already waiting or being processed)",
		"queue add demo/tools depth=1 from=demo/web-2 (low priority: initial list or resync)",
		"controller reconcile demo/tools error (retry 1): boom", "controller reconcile demo/tools ok 1ms, requeue after 5s")
	for _, deltaFIFO := range []bool{false, true} {
		h := New(Options{DeltaFIFO: deltaFIFO})
		for _, line := range lines {
			h.Trace(line)
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

func TestParse_reads_the_key_of_every_stage(t *testing.T) {
	for _, tc := range []struct{ line, stage, verb, key, from string }{
		{"listwatch ITEM   demo/web-1 rv=4", "listwatch", "ITEM", "demo/web-1", ""},
		{"listwatch LISTED rv=5 items=1", "listwatch", "LISTED", "", ""},
		{`listwatch WATCH  rv="" timeout=5m3s sendInitialEvents`, "listwatch", "WATCH", "", ""},
		{"listwatch ADD    node-1 rv=6", "listwatch", "ADD", "node-1", ""},
		{"fifo pop Updated demo/web-2 rv=7", "fifo", "pop", "demo/web-2", ""},
		{"fifo pop Bookmark rv=5", "fifo", "pop", "", ""},
		{"store delete demo/web-2 size=1", "store", "delete", "demo/web-2", ""},
		{"handler add demo/web-2 to=podrestart backlog=1", "handler", "add", "demo/web-2", ""},
		{"queue add demo/tools depth=1 from=demo/web-2", "queue", "add", "demo/tools", "demo/web-2"},
		{"queue add demo/tools depth=1", "queue", "add", "demo/tools", ""},
		{"controller reconcile demo/tools start", "controller", "reconcile", "demo/tools", ""},
		{"apiclient PATCH deployments demo/tools 200 1ms", "apiclient", "PATCH", "demo/tools", ""},
		{"apiclient POST pods demo 201 1ms", "apiclient", "POST", "demo", ""},
		{"", "", "", "", ""},
		{"informer pods: resync: boom", "informer", "pods:", "resync:", ""},
	} {
		h := parse(tc.line)
		if h.Stage != tc.stage || h.Verb != tc.verb || h.Key != tc.key || h.From != tc.from {
			t.Errorf("parse(%q) = stage %q verb %q key %q from %q, want %q %q %q %q", tc.line, h.Stage, h.Verb, h.Key, h.From, tc.stage, tc.verb, tc.key, tc.from)
		}
	}
}

// FuzzParse: a trace line is the pipeline's text, but it carries what the
// server sent (names, error messages): whatever it holds, reading it does not
// panic, and what it yields are words of the line.
func FuzzParse(f *testing.F) {
	b, err := os.ReadFile("testdata/demo.trace")
	if err != nil {
		f.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, line string) {
		h := parse(line)
		words := strings.Fields(line)
		for _, part := range []string{h.Stage, h.Verb, h.Key} {
			if part != "" && !containsWord(words, part) {
				t.Fatalf("parse(%q) yields %q, not a word of the line", line, part)
			}
		}
		if h.Line != line {
			t.Fatalf("parse(%q).Line = %q", line, h.Line)
		}
	})
}

func containsWord(words []string, w string) bool {
	for _, x := range words {
		if x == w {
			return true
		}
	}
	return false
}
