package perturb

import (
	"strings"
	"testing"
)

// FuzzParseTarget: whatever path a client sends, the gate's reading of it does
// not panic, and a collection it names has a path that reads back as itself.
func FuzzParseTarget(f *testing.F) {
	for _, p := range []string{"/api/v1/namespaces/demo/pods/web/status", "/apis/apps/v1/deployments", "/api/v1/namespaces/demo",
		"/api/v1/namespaces/demo/finalize", "/apis/example.com/v1/namespaces/a/widgets", "/version", "//api//v1"} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, path string) {
		tg, ok := parseTarget(path)
		if !ok {
			return
		}
		if tg.resource == "" || strings.Contains(tg.resource, "/") {
			t.Fatalf("parseTarget(%q) = %+v: no resource", path, tg)
		}
		back, ok := parseTarget(tg.collectionPath(tg.namespace))
		if !ok || back.coll() != tg.coll() || back.namespace != tg.namespace {
			t.Fatalf("parseTarget(%q) = %+v, whose collection path %q reads %+v", path, tg, tg.collectionPath(tg.namespace), back)
		}
	})
}

// FuzzParseEvent: whatever line a watch carries, reading it does not panic.
func FuzzParseEvent(f *testing.F) {
	for _, l := range []string{`{"type":"ADDED","object":{"metadata":{"name":"a","namespace":"b","resourceVersion":"7"}}}`,
		`{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"9","annotations":{"k8s.io/initial-events-end":"true"}}}}`,
		`{"type":"ERROR","object":{"kind":"Status","code":410}}`, `{"type":`, `[]`, `null`} {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		ev := parseEvent(line)
		_ = ev.version()
		_ = ev.key()
	})
}
