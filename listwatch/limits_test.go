package listwatch_test

import (
	"errors"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/listwatch"
)

const streamingList = "> GET /api/v1/namespaces/demo/pods?allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&watch=true"

func initialEventsEnd(rv string) string {
	return `{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"` + rv + `","annotations":{"k8s.io/initial-events-end":"true"}}}}`
}

// TestReflector_a_list_over_its_limits_never_reaches_the_sink: a LIST in pages,
// one unpaged LIST and a streaming list are each bounded by the client's
// ListLimits, all their pages or events together (issue 29). The list that
// passes a bound ends there: nothing of it reaches the Sink, the Reflector backs
// off and lists again, the same way (a streaming list stays on), and a list
// within the bounds is a Replace as ever. Golden files:
// testdata/golden/limits-NAME.golden.
func TestReflector_a_list_over_its_limits_never_reaches_the_sink(t *testing.T) {
	for _, tt := range []struct {
		name   string
		limits apiclient.ListLimits
		opts   listwatch.Options
		script []string
	}{
		{"objects", apiclient.ListLimits{Objects: 2}, listwatch.Options{}, []string{
			list0, ok, podList("10", podJSON("a", "5"), podJSON("b", "6"), podJSON("c", "7")),
			list0, ok, podList("10", podJSON("a", "5"), podJSON("b", "6")),
			watch10, ok, ev("ADDED", "c", "11"), "< end",
		}},
		{"pages-that-never-end", apiclient.ListLimits{Bytes: 400}, listwatch.Options{PageSize: 1}, []string{
			// Each page is a new token and 150 bytes: the third passes 400.
			page1, ok, pagedList("10", "p2", podJSON("a", "5")),
			page2, ok, pagedList("10", "p3", podJSON("b", "6")),
			"> GET /api/v1/namespaces/demo/pods?continue=p3&limit=1", ok, pagedList("10", "p4", podJSON("c", "7")),
			page1, ok, pagedList("10", "", podJSON("a", "5")),
			"> GET /api/v1/namespaces/demo/pods?allowWatchBookmarks=true&resourceVersion=10&watch=true", ok, ev("ADDED", "b", "11"), "< end",
		}},
		{"streaming", apiclient.ListLimits{Bytes: 300}, listwatch.Options{List: listwatch.ListStreaming}, []string{
			// Each event is 110 bytes: the third passes 300.
			streamingList, ok, ev("ADDED", "a", "5"), ev("ADDED", "b", "6"), ev("ADDED", "c", "7"), ev("ADDED", "d", "8"), "< end",
			streamingList, ok, ev("ADDED", "a", "5"), initialEventsEnd("10"), "< end",
			watch10, ok, ev("ADDED", "b", "11"), "< end",
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sc := newScenarioWith(t, script(t, tt.script...), apiclient.Options{ListLimits: tt.limits}, tt.opts)
			var limitErr error
			sc.onStepHook = func(s listwatch.Step) {
				if s.Op == listwatch.OpError && limitErr == nil {
					limitErr = s.Err
				}
			}
			out := sc.run()
			goldenLines(t, "limits-"+tt.name, out)
			if !errors.Is(limitErr, apiclient.ErrListLimit) {
				t.Errorf("the first error %v does not wrap apiclient.ErrListLimit", limitErr)
			}
			if got := sc.sink.replaceCount(); got != 1 {
				t.Errorf("%d Replace calls, want 1: the list within the bounds", got)
			}
		})
	}
}
