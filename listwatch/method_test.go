package listwatch_test

import (
	"context"
	"errors"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/listwatch"
)

// ListCheapest lists with LIST on a server whose LIST answers stream their JSON
// (1.33 and later) — its first LIST of the latest state, whole, not at "0" —,
// with a streaming list before that or when the release cannot be read, and with
// LIST at "0" when nobody says how to ask. Each script is what the
// server must see: the first list and the watch after it.
func TestReflector_lists_the_cheapest_way_for_the_servers_release(t *testing.T) {
	const streaming = "> GET /api/v1/namespaces/demo/pods?allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&watch=true"
	end := `{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"10","annotations":{"k8s.io/initial-events-end":"true"}}}}`
	listed := []string{list0, ok, podList("10", podJSON("a", "5")), watch10, ok, ev("ADDED", "b", "11"), "< end"}
	// From 1.33 the first LIST asks for the latest state, whole (list.go).
	latest := []string{"> GET /api/v1/namespaces/demo/pods", ok, podList("10", podJSON("a", "5")), watch10, ok, ev("ADDED", "b", "11"), "< end"}
	streamed := []string{streaming, ok, ev("ADDED", "a", "5"), end, ev("ADDED", "b", "11"), "< end"}
	release := func(minor string, err error) func(context.Context) (apiclient.ServerVersion, error) {
		return func(context.Context) (apiclient.ServerVersion, error) {
			return apiclient.ServerVersion{Major: "1", Minor: minor, GitVersion: "v1." + minor + ".0"}, err
		}
	}
	for _, tt := range []struct {
		name   string
		opts   listwatch.Options
		script []string
	}{
		{"1.37: LIST of the latest state", listwatch.Options{ServerVersion: release("37", nil)}, latest},
		{"1.33: LIST of the latest state", listwatch.Options{ServerVersion: release("33", nil)}, latest},
		{"1.37 with FirstListAtZero: LIST at 0, in pages", listwatch.Options{ServerVersion: release("37", nil), FirstListAtZero: true}, listed},
		{"ListPaged on 1.37: LIST at 0, in pages", listwatch.Options{List: listwatch.ListPaged, ServerVersion: release("37", nil)}, listed},
		{"1.32: a streaming list", listwatch.Options{ServerVersion: release("32", nil)}, streamed},
		{"a vendor's 1.30+: a streaming list", listwatch.Options{ServerVersion: release("30+", nil)}, streamed},
		{"release unknown: a streaming list", listwatch.Options{ServerVersion: release("", errors.New("403 Forbidden"))}, streamed},
		{"nobody to ask: LIST", listwatch.Options{}, listed},
		{"ListPaged on 1.32: LIST", listwatch.Options{List: listwatch.ListPaged, ServerVersion: release("32", nil)}, listed},
		{"ListStreaming on 1.37: a streaming list", listwatch.Options{List: listwatch.ListStreaming, ServerVersion: release("37", nil)}, streamed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sc := newScenario(t, script(t, tt.script...), tt.opts)
			sc.run() // fails when a request is not the script's next
		})
	}
}
