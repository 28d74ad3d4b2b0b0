package listwatch_test

import (
	"fmt"
	"testing"

	"github.com/kubewire/kubewire/apiclient/recording"
	"github.com/kubewire/kubewire/listwatch"
)

func podJSON(name, rv string) string {
	return fmt.Sprintf(`{"metadata":{"name":%q,"namespace":"demo","resourceVersion":%q}}`, name, rv)
}

func ev(typ, name, rv string) string {
	return fmt.Sprintf(`{"type":%q,"object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":%q,"namespace":"demo","resourceVersion":%q}}}`, typ, name, rv)
}

// TestReflector_walks_every_transition_of_a_hand_written_script is the tour: one
// script, written by hand, that takes the reflector through each arrow of the
// package doc's drawing. The scenarios in scenario_test.go do the same on bytes
// recorded from a real kube-apiserver.
func TestReflector_walks_every_transition_of_a_hand_written_script(t *testing.T) {
	sc := newScenario(t, tourScript(t), listwatch.Options{})
	goldenLines(t, "tour", sc.run())
}

func tourScript(t *testing.T) *recording.Recording {
	t.Helper()
	return script(t,
		"> GET /api/v1/namespaces/demo/pods?limit=500&resourceVersion=0",
		"< 200",
		`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"10"},"items":[`+podJSON("a", "5")+`,`+podJSON("b", "6")+`]}`,
		"> GET /api/v1/namespaces/demo/pods?allowWatchBookmarks=true&resourceVersion=10&watch=true",
		"< 200",
		ev("ADDED", "c", "11"),
		ev("MODIFIED", "a", "12"),
		"< end",
		"> GET /api/v1/namespaces/demo/pods?allowWatchBookmarks=true&resourceVersion=12&watch=true",
		"< 200",
		ev("DELETED", "b", "13"),
		"| garbage",
		"> GET /api/v1/namespaces/demo/pods?allowWatchBookmarks=true&resourceVersion=13&watch=true",
		"< 500",
		`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"boom","reason":"InternalError","code":500}`,
		"> GET /api/v1/namespaces/demo/pods?allowWatchBookmarks=true&resourceVersion=13&watch=true",
		"< 200",
		ev("ADDED", "d", "14"),
		"< stall",
		"> GET /api/v1/namespaces/demo/pods?allowWatchBookmarks=true&resourceVersion=14&watch=true",
		"< 200",
		`{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 14 (20)","reason":"Expired","code":410}}`,
		"> GET /api/v1/namespaces/demo/pods?resourceVersion=14",
		"< 200",
		`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"30"},"items":[`+podJSON("a", "12")+`]}`,
	)
}
