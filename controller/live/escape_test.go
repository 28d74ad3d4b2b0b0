package live_test

import (
	"bytes"
	"io"
	"net/http"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/kubewire/kubewire/controller/live"
	"github.com/kubewire/kubewire/controller/live/livetest"
	"github.com/kubewire/kubewire/controller/pipeline"
	"github.com/kubewire/kubewire/controller/trace"
)

// Issue 39: what the page's API answers is read by curl as often as by the
// page, and its strings come from the cluster (names, selectors, a server's
// errors). encoding/json escapes the C0 controls, but wrote DEL, the C1
// controls (U+009B is a terminal's CSI) and the bidi overrides raw. Every rune
// that is not printable is a \u escape now: the page reads the same string,
// a terminal is told nothing.
func TestServe_writes_no_control_character_to_a_terminal(t *testing.T) {
	hostile := "pods\x1b[31m\n\u009b31m\x7f\u202e\u2028"
	h := live.New(live.Options{Command: "run", Pipeline: func() pipeline.Snapshot {
		return pipeline.Snapshot{Informers: []pipeline.Informer{{Name: hostile, Namespace: hostile, Selector: hostile,
			Reflector: pipeline.Reflector{LastError: hostile}}}}
	}})
	h.Trace(trace.Event{Stage: trace.FIFO, Verb: "pop", Delta: "Added", Key: "demo/" + hostile, ResourceVersion: "7"})
	addr := served(t, h)
	for _, path := range []string{"/api/snapshot", "/api/follow?key=demo/" + "pods%1B%5B31m%0A%C2%9B31m%7F%E2%80%AE%E2%80%A8"} {
		res, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		printable(t, "GET "+path, body)
	}
	err := livetest.Events("http://"+addr, func(event, data string) bool {
		printable(t, "event "+event, []byte(data))
		return false // the first event: a snapshot
	})
	if err != nil {
		t.Fatal(err)
	}
}

// printable fails the test for the first rune of b, a JSON answer, that is
// not printable (its newline at the end aside).
func printable(t *testing.T, what string, b []byte) {
	t.Helper()
	if !bytes.Contains(b, []byte(`\u009b31m\u007f\u202e\u2028`)) {
		t.Errorf("%s = %q: the hostile string is not there, escaped", what, b)
	}
	for i, r := range string(bytes.TrimSuffix(b, []byte("\n"))) {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			t.Errorf("%s: %U at byte %d of %q", what, r, i, b)
			return
		}
	}
}
