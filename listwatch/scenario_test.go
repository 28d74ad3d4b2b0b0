package listwatch_test

import (
	"path/filepath"
	"testing"

	"github.com/kubewire/kubewire/apiclient/recording"
	"github.com/kubewire/kubewire/listwatch"
)

// The scenarios replay recordings of a real kube-apiserver (testdata/scenarios at the
// repository root; testdata/README.md says how each was made) to a Reflector on a
// fake clock, and compare what it did, step by step, with a golden file
// (testdata/golden/NAME.golden here; go test -update rewrites them). Each golden file
// ends with what the sink holds. The replaying server also checks every request the
// reflector makes against the recording, query included, so a scenario fails if
// the reflector asks for the wrong resourceVersion, limit or continue token.
func TestScenarios(t *testing.T) {
	for _, tt := range []struct {
		name string
		what string
		opts listwatch.Options
	}{
		{"list-watch", "a LIST, then a watch that adds, updates and deletes, ended by the server", listwatch.Options{}},
		{"rewatch", "a watch the server ends normally is followed by one from its last resourceVersion, without a LIST", listwatch.Options{}},
		{"paged-list", "a LIST in pages of 2 follows the continue tokens; later pages carry no resourceVersion", listwatch.Options{PageSize: 2}},
		{"bookmarks", "bookmarks move the resourceVersion on, and the next watch starts from the last one", listwatch.Options{}},
		{"streaming-list", "a streaming list collects the initial events, Replaces at the initial-events-end bookmark and watches on", listwatch.Options{List: listwatch.ListStreaming}},
		{"streaming-refused", "a refused streaming list falls back to LIST, and is not tried again", listwatch.Options{List: listwatch.ListStreaming}},
		{"relist-410", "a 410 on the watch relists at the last resourceVersion; the pods deleted meanwhile reach the sink as deletes", listwatch.Options{}},
		{"continue-410", "an expired continue token (410) makes one LIST of everything at the same resourceVersion", listwatch.Options{PageSize: 2}},
		{"malformed-line", "an unknown event type is skipped; a line that is not JSON drops the stream, which resumes from the last event", listwatch.Options{}},
		{"stall", "a watch that goes silent is dropped after its timeout plus the margin, and resumed", listwatch.Options{}},
		{"cut", "a stream cut in the middle of an event resumes after the last whole event", listwatch.Options{}},
		{"close", "a connection dropped mid-stream resumes from the last event", listwatch.Options{}},
		{"backoff-500", "repeated 500s back off 0.8 s doubling with jitter; the backoff resets after two quiet minutes", listwatch.Options{}},
		{"throttled-429", "429 with Retry-After is retried by the client after that long; a Status asking for more makes the backoff wait longer", listwatch.Options{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec, err := recording.Open(filepath.Join("..", "testdata", "scenarios", tt.name+".rec"))
			if err != nil {
				t.Fatal(err)
			}
			goldenLines(t, tt.name, append([]string{"# " + tt.what}, newScenario(t, rec, tt.opts).run()...))
		})
	}
}
