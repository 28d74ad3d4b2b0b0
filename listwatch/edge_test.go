package listwatch_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/listwatch"
)

const (
	list0    = "> GET /api/v1/namespaces/demo/pods?limit=500&resourceVersion=0"
	watch10  = "> GET /api/v1/namespaces/demo/pods?allowWatchBookmarks=true&resourceVersion=10&watch=true"
	watch11  = "> GET /api/v1/namespaces/demo/pods?allowWatchBookmarks=true&resourceVersion=11&watch=true"
	ok       = "< 200"
	gone     = `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 10 (20)","reason":"Expired","code":410}}`
	tooLarge = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Timeout: Too large resource version: 11, current: 9","reason":"Timeout","details":{"causes":[{"reason":"ResourceVersionTooLarge","message":"Too large resource version"}],"retryAfterSeconds":1},"code":504}`
	badRV    = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"invalid resource version: x","reason":"BadRequest","code":400}`
	gone410  = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 10 (20)","reason":"Expired","code":410}`
)

func bookmark(rv string) string {
	return `{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"` + rv + `"}}}`
}

func podList(rv string, pods ...string) string {
	return `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"` + rv + `"},"items":[` + strings.Join(pods, ",") + `]}`
}

// TestReflector_edge_cases replays short hand-written scripts for what the recorded
// scenarios do not show, each against a golden file (testdata/golden/edge-NAME).
func TestReflector_edge_cases(t *testing.T) {
	for _, tt := range []struct {
		name   string
		opts   listwatch.Options
		script []string
	}{
		{"closed-at-once", listwatch.Options{}, []string{
			// A watch ended at once with nothing in it could spin: it backs off.
			list0, ok, podList("10", podJSON("a", "5")),
			watch10, ok, "< end # at once",
			watch10, ok, ev("ADDED", "b", "11"), "< end",
		}},
		{"closed-at-once-after-an-event", listwatch.Options{}, []string{
			// So does one that ends at once after an event: progress or not, a
			// server that hangs up every watch at once gets the growing backoff
			// (issue 29: one MODIFIED a watch made 2,670 watches a second).
			list0, ok, podList("10", podJSON("a", "5")),
			watch10, ok, ev("MODIFIED", "a", "11"), "< end # at once",
			watch11, ok, ev("MODIFIED", "a", "12"), "< end # at once",
			"> GET /api/v1/namespaces/demo/pods?allowWatchBookmarks=true&resourceVersion=12&watch=true", ok, ev("MODIFIED", "a", "13"), "< end # at once",
			"> GET /api/v1/namespaces/demo/pods?allowWatchBookmarks=true&resourceVersion=13&watch=true", ok, ev("MODIFIED", "a", "14"), "< end",
		}},
		{"only-bookmarks-then-end", listwatch.Options{}, []string{
			// Ending at once after a bookmark that moves nothing is no progress
			// either: it backs off too (issue 16: it watched again at once, forever).
			list0, ok, podList("10", podJSON("a", "5")),
			watch10, ok, bookmark("10"), "< end # at once",
			watch10, ok, ev("ADDED", "b", "11"), "< end",
		}},
		{"watch-refused", listwatch.Options{}, []string{
			// A watch refused for its resourceVersion (400) cannot succeed with the
			// same one: back off and list the latest (issue 16: it retried rv=10
			// forever).
			list0, ok, podList("10", podJSON("a", "5")),
			watch10, "< 400", badRV,
			"> GET /api/v1/namespaces/demo/pods?limit=500", ok, podList("12", podJSON("a", "5"), podJSON("b", "12")),
			"> GET /api/v1/namespaces/demo/pods?allowWatchBookmarks=true&resourceVersion=12&watch=true", ok, ev("ADDED", "c", "13"), "< end",
		}},
		{"gone-right-after-a-list", listwatch.Options{}, []string{
			// A 410 before any event waits before relisting: no LIST loop.
			list0, ok, podList("10", podJSON("a", "5")),
			watch10, ok, gone, "< end",
			"> GET /api/v1/namespaces/demo/pods?resourceVersion=10", ok, podList("20", podJSON("a", "5")),
		}},
		{"gone-on-the-list", listwatch.Options{}, []string{
			// A LIST at a resourceVersion the server no longer has lists the latest.
			list0, ok, podList("10", podJSON("a", "5")),
			watch10, ok, ev("ADDED", "b", "11"), gone, "< end",
			"> GET /api/v1/namespaces/demo/pods?resourceVersion=11", "< 410", gone410,
			"> GET /api/v1/namespaces/demo/pods?limit=500", ok, podList("30", podJSON("b", "11")),
		}},
		{"no-answer", listwatch.Options{}, []string{
			// A server that accepts the watch but never answers is caught by the
			// watchdog, which was armed before the request went out.
			list0, ok, podList("10"),
			watch10, "< stall",
			watch10, ok, ev("ADDED", "a", "11"), "< end",
		}},
		{"selectors", listwatch.Options{LabelSelector: "app=web", FieldSelector: "metadata.name!=x"}, []string{
			// Selectors go on every request as given (the server checks the queries).
			"> GET /api/v1/namespaces/demo/pods?fieldSelector=metadata.name%21%3Dx&labelSelector=app%3Dweb&limit=500&resourceVersion=0", ok, podList("10"),
			"> GET /api/v1/namespaces/demo/pods?allowWatchBookmarks=true&fieldSelector=metadata.name%21%3Dx&labelSelector=app%3Dweb&resourceVersion=10&watch=true", ok, ev("ADDED", "a", "11"), "< end",
		}},
		{"no-paging", listwatch.Options{PageSize: -1}, []string{
			"> GET /api/v1/namespaces/demo/pods?resourceVersion=0", ok, podList("10"),
			watch10, ok, ev("ADDED", "a", "11"), "< end",
		}},
		{"streaming-cut-short", listwatch.Options{List: listwatch.ListStreaming}, []string{
			// A streaming list that ends before its end bookmark falls back to LIST
			// this time, and is tried again at the next list.
			"> GET /api/v1/namespaces/demo/pods?allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&watch=true", ok, ev("ADDED", "a", "5"), "< end",
			list0, ok, podList("10", podJSON("a", "5")),
			watch10, ok, ev("ADDED", "b", "11"), gone, "< end",
			"> GET /api/v1/namespaces/demo/pods?allowWatchBookmarks=true&resourceVersion=11&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&watch=true", ok,
			ev("ADDED", "c", "12"),
			`{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"14","annotations":{"k8s.io/initial-events-end":"true"}}}}`,
			"< end",
			"> GET /api/v1/namespaces/demo/pods?allowWatchBookmarks=true&resourceVersion=14&watch=true", ok, ev("MODIFIED", "c", "15"), "< end",
		}},
		{"streaming-ignored", listwatch.Options{List: listwatch.ListStreaming}, []string{
			// A server that ignores sendInitialEvents and streams changes (bench's
			// `clientgo serve`, a proxy): the first MODIFIED before the end bookmark
			// gives it away, and the Reflector lists with LIST at once. The watch
			// starts at the LIST's version, and streaming lists are not tried again.
			"> GET /api/v1/namespaces/demo/pods?allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&watch=true", ok, ev("MODIFIED", "a", "6"), ev("MODIFIED", "a", "7"), "< end",
			list0, ok, podList("10", podJSON("a", "7")),
			watch10, ok, ev("MODIFIED", "a", "11"), gone, "< end",
			"> GET /api/v1/namespaces/demo/pods?resourceVersion=11", ok, podList("20", podJSON("a", "11")),
			"> GET /api/v1/namespaces/demo/pods?allowWatchBookmarks=true&resourceVersion=20&watch=true", ok, ev("DELETED", "a", "21"), "< end",
		}},
		{"streaming-silent", listwatch.Options{List: listwatch.ListStreaming}, []string{
			// Nothing at all for a second: a server that ignores sendInitialEvents
			// with nothing to say, or one slow to start. This list is a LIST; the
			// next one streams again.
			"> GET /api/v1/namespaces/demo/pods?allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&watch=true", ok, "< stall",
			list0, ok, podList("10", podJSON("a", "5")),
			watch10, ok, ev("ADDED", "b", "11"), gone, "< end",
			"> GET /api/v1/namespaces/demo/pods?allowWatchBookmarks=true&resourceVersion=11&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&watch=true", ok,
			ev("ADDED", "b", "11"),
			`{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"14","annotations":{"k8s.io/initial-events-end":"true"}}}}`,
			"< end",
			"> GET /api/v1/namespaces/demo/pods?allowWatchBookmarks=true&resourceVersion=14&watch=true", ok, ev("MODIFIED", "b", "15"), "< end",
		}},
		{"streaming-without-its-end", listwatch.Options{List: listwatch.ListStreaming}, []string{
			// A server that sends the state as ADDED events but never ends them (it
			// answers a watch from "" the legacy way): after a second of silence
			// the Reflector lists with LIST, and does not try a streaming list again
			// (the relist after the 410 is a LIST), rather than wait out the watch's
			// timeout.
			"> GET /api/v1/namespaces/demo/pods?allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&watch=true", ok, ev("ADDED", "a", "5"), "< stall",
			list0, ok, podList("10", podJSON("a", "5")),
			watch10, ok, ev("ADDED", "b", "11"), gone, "< end",
			"> GET /api/v1/namespaces/demo/pods?resourceVersion=11", ok, podList("20", podJSON("b", "11")),
			"> GET /api/v1/namespaces/demo/pods?allowWatchBookmarks=true&resourceVersion=20&watch=true", ok, ev("MODIFIED", "b", "21"), "< end",
		}},
		{"streaming-404-on-the-first-list", listwatch.Options{List: listwatch.ListStreaming}, []string{
			// A 404 says the resource is not served yet (its CRD is not
			// installed), not that streaming lists are not: the list after the
			// backoff streams again (issue 31: it listed with LIST for the rest
			// of the process).
			streamingList, "< 404", status(404, "NotFound", "the server could not find the requested resource"),
			list0, "< 404", status(404, "NotFound", "the server could not find the requested resource"),
			streamingList, ok, ev("ADDED", "a", "5"), initialEventsEnd("10"), "< end",
			watch10, ok, ev("ADDED", "b", "11"), "< end",
		}},
		{"server-unreachable", listwatch.Options{}, []string{
			// The API server goes away under a quiet watch (no event since the
			// list) and stays away: while nothing answers, the waits stay at 1–2 s
			// instead of growing to a minute. Its first answer, a 410 (its watch
			// cache starts after our version), starts the backoff again, so the
			// relist waits 1–2 s too (issue 31: 45 s after a 20 s outage).
			list0, ok, podList("10", podJSON("a", "5")),
			watch10, ok, "< close",
			watch10, "< close", watch10, "< close", watch10, "< close", watch10, "< close",
			watch10, "< close", watch10, "< close", watch10, "< close",
			watch10, ok, gone, "< end",
			"> GET /api/v1/namespaces/demo/pods?resourceVersion=10", ok, podList("30", podJSON("a", "5")),
			"> GET /api/v1/namespaces/demo/pods?allowWatchBookmarks=true&resourceVersion=30&watch=true", ok, ev("ADDED", "b", "31"), "< end",
		}},
		{"too-large-resource-version", listwatch.Options{}, []string{
			// A server whose cache is behind our resourceVersion: the watch relists,
			// and the LIST at that version, refused the same way, lists the latest.
			list0, ok, podList("10"),
			watch10, ok, ev("ADDED", "a", "11"), "< end",
			watch11, "< 504", tooLarge,
			"> GET /api/v1/namespaces/demo/pods?resourceVersion=11", "< 504", tooLarge,
			"> GET /api/v1/namespaces/demo/pods?limit=500", ok, podList("12", podJSON("a", "11")),
		}},
		{"oversized-line", listwatch.Options{}, []string{
			// One line over 16 MiB is a broken stream, not an object: dropped, resumed.
			list0, ok, podList("10"),
			watch10, ok, ev("ADDED", "a", "11"), `{"type":"ADDED","object":{"metadata":{"name":"huge","annotations":{"x":"` + strings.Repeat("x", 17<<20) + `"}}}}`, "< end",
			watch11, ok, ev("ADDED", "b", "12"), "< end",
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			goldenLines(t, "edge-"+tt.name, newScenario(t, script(t, tt.script...), tt.opts).run())
		})
	}
}

// A Sink that tracks its resourceVersion (the informer's) hears of every bookmark
// of a watch, in order with the events: without them its version would stand
// still while the server moves on.
func TestReflector_tells_a_Bookmarker_of_every_bookmark(t *testing.T) {
	sc := newScenario(t, script(t,
		list0, ok, podList("10", podJSON("a", "5")),
		watch10, ok, bookmark("12"), ev("ADDED", "b", "13"), bookmark("15"), "< end",
	), listwatch.Options{})
	sc.run()
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if got, want := strings.Join(sc.bookmarks, " "), "12 15"; got != want {
		t.Fatalf("Bookmark calls: %q, want %q", got, want)
	}
}

// A relist keeps the objects the Sink holds unchanged instead of the copies it
// decoded, by LIST and by streaming list alike: only what changed costs memory
// twice while the list arrives.
func TestReflector_a_relist_keeps_what_a_Holder_holds_unchanged(t *testing.T) {
	for _, tt := range []struct {
		name   string
		opts   listwatch.Options
		relist []string
	}{
		{"list", listwatch.Options{}, []string{
			"> GET /api/v1/namespaces/demo/pods?resourceVersion=11", ok,
			podList("20", podJSON("a", "5"), podJSON("b", "15"), podJSON("c", "11")),
		}},
		{"streaming list", listwatch.Options{List: listwatch.ListStreaming}, []string{
			"> GET /api/v1/namespaces/demo/pods?allowWatchBookmarks=true&resourceVersion=11&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&watch=true", ok,
			ev("ADDED", "a", "5"), ev("ADDED", "b", "15"), ev("ADDED", "c", "11"),
			`{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"20","annotations":{"k8s.io/initial-events-end":"true"}}}}`,
			"< end",
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			first := []string{list0, ok, podList("10", podJSON("a", "5"), podJSON("b", "6")),
				watch10, ok, ev("ADDED", "c", "11"), gone, "< end"}
			if tt.opts.List == listwatch.ListStreaming {
				first = []string{
					"> GET /api/v1/namespaces/demo/pods?allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&watch=true", ok,
					ev("ADDED", "a", "5"), ev("ADDED", "b", "6"),
					`{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"10","annotations":{"k8s.io/initial-events-end":"true"}}}}`,
					ev("ADDED", "c", "11"), gone, "< end"}
			}
			sc := newScenario(t, script(t, append(first, tt.relist...)...), tt.opts)
			sc.run()
			sc.mu.Lock()
			defer sc.mu.Unlock()
			var keys []string
			for k, o := range sc.held {
				keys = append(keys, k)
				if sc.sink.objects[k] != o {
					t.Errorf("%s: the sink holds another copy than the one it handed back", k)
				}
			}
			slices.Sort(keys)
			if got, want := strings.Join(keys, " "), "demo/a demo/c"; got != want {
				t.Fatalf("kept from the sink: %q, want %q (b changed)", got, want)
			}
		})
	}
}
