package listwatch_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/listwatch"
)

// failedLists are the ways a LIST can fail, each as the response lines of a script:
// refused outright (a status), or answered 200 with a body that is not a whole list.
var failedLists = []struct {
	name     string
	response []string
}{
	{"404 (a CRD not installed yet)", []string{"< 404", status(404, "NotFound", "the server could not find the requested resource")}},
	{"403", []string{"< 403", status(403, "Forbidden", `pods is forbidden: User "kw" cannot list resource "pods"`)}},
	{"500", []string{"< 500", status(500, "InternalError", "an error on the server has prevented the request from succeeding")}},
	{"a body cut mid-list", []string{ok, podList("10", podJSON("x", "9"), podJSON("y", "10")), "< cut 150"}},
	{"a malformed body", []string{ok, `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"10"},"items":[` + podJSON("x", "9") + `,{"kind":"Pod"]}`}},
}

func status(code int, reason, message string) string {
	return fmt.Sprintf(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":%q,"reason":%q,"details":{},"code":%d}`, message, reason, code)
}

// TestReflector_a_failed_list_never_reaches_the_sink: whatever made a LIST fail, the
// Sink sees no Replace from it. On the first list the Reflector stays unsynced with
// an empty Sink (a controller that deletes orphans must not start on it); on a
// relist the Sink keeps what it held and no object is deleted.
func TestReflector_a_failed_list_never_reaches_the_sink(t *testing.T) {
	for _, tt := range failedLists {
		t.Run("first list: "+tt.name, func(t *testing.T) {
			lines := append([]string{list0}, tt.response...)
			sc := newScenario(t, script(t, lines...), listwatch.Options{})
			out := sc.run()
			if got := sc.sink.replaceCount(); got != 0 {
				t.Errorf("%d Replace calls, want none:\n%s", got, strings.Join(out, "\n"))
			}
			if sc.r.HasSynced() || sc.r.Health().Synced {
				t.Error("synced after a list that failed")
			}
			if got := sc.sink.state(); len(got) != 0 {
				t.Errorf("the sink holds %q, want nothing", got)
			}
		})
		t.Run("relist: "+tt.name, func(t *testing.T) {
			lines := []string{
				list0, ok, podList("10", podJSON("a", "5"), podJSON("b", "6")),
				watch10, ok, ev("ADDED", "c", "11"), gone, "< end",
				"> GET /api/v1/namespaces/demo/pods?resourceVersion=11",
			}
			sc := newScenario(t, script(t, append(lines, tt.response...)...), listwatch.Options{})
			out := sc.run()
			if got := sc.sink.replaceCount(); got != 1 {
				t.Errorf("%d Replace calls, want 1 (the first list's):\n%s", got, strings.Join(out, "\n"))
			}
			if got, want := sc.sink.state(), []string{"demo/a rv=5", "demo/b rv=6", "demo/c rv=11"}; !slices.Equal(got, want) {
				t.Errorf("the sink holds %q, want %q", got, want)
			}
			for _, l := range out {
				if strings.Contains(l, "missing from relist") {
					t.Errorf("a failed relist deleted: %s", l)
				}
			}
			if !sc.r.HasSynced() {
				t.Error("a failed relist unsynced the reflector: synced means the first list arrived, and it did")
			}
		})
	}
}

// TestReflector_no_path_hands_a_partial_list_to_the_sink: every way a list is put
// together — pages, the unpaged LIST after an expired continue token, the LIST after
// a streaming list that ended before its bookmark — gets each failure of
// failedLists at its last request, after objects have arrived. The Sink sees none
// of them.
func TestReflector_no_path_hands_a_partial_list_to_the_sink(t *testing.T) {
	for _, path := range []struct {
		name string
		opts listwatch.Options
		head []string // the requests before the one that fails, and the failing request
	}{
		{"the second page", listwatch.Options{PageSize: 1}, []string{
			page1, ok, pagedList("10", "p2", podJSON("a", "5")),
			page2,
		}},
		{"the LIST after an expired continue token", listwatch.Options{PageSize: 1}, []string{
			page1, ok, pagedList("10", "p2", podJSON("a", "5")),
			page2, "< 410", gone410,
			"> GET /api/v1/namespaces/demo/pods?resourceVersion=0",
		}},
		{"the LIST after a streaming list cut short", listwatch.Options{List: listwatch.ListStreaming}, []string{
			"> GET /api/v1/namespaces/demo/pods?allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&watch=true", ok, ev("ADDED", "a", "5"), "< end",
			list0,
		}},
	} {
		for _, tt := range failedLists {
			t.Run(path.name+": "+tt.name, func(t *testing.T) {
				lines := append(slices.Clone(path.head), tt.response...)
				sc := newScenario(t, script(t, lines...), path.opts)
				out := sc.run()
				if got := sc.sink.replaceCount(); got != 0 || sc.r.HasSynced() {
					t.Errorf("%d Replace calls, synced %v; want none, false:\n%s", got, sc.r.HasSynced(), strings.Join(out, "\n"))
				}
			})
		}
	}
}
