package apitest

import "testing"

// FuzzParse: the request parsing of the live server (paths, selectors, merge
// patches) never panics, whatever a client sends. Internal, since these helpers are
// unexported; the server answers 4xx for what they refuse.
func FuzzParse(f *testing.F) {
	f.Add("/api/v1/namespaces/demo/pods/web/status", "app=web,tier!=db,!gone,x", "metadata.name=web", `{"metadata":{"labels":{"a":null}}}`)
	f.Add("/apis/apps/v1/deployments", "a in (b)", "spec.x=y", `[1,2]`)
	f.Add("/api/v1/namespaces/x", "", "", `null`)
	f.Fuzz(func(t *testing.T, path, labels, fields, patch string) {
		parsePath(path)
		if sel, err := parseSelector(labels); err == nil {
			sel(map[string]string{"app": "web"})
		}
		if sel, err := parseFieldSelector("pods", fields); err == nil {
			sel(selectable("pods", object{"metadata": map[string]any{"name": "web"}, "status": "odd"}))
		}
		var p any
		if decodeJSON([]byte(patch), &p) == nil {
			mergePatch(map[string]any{"metadata": map[string]any{"name": "web"}}, p)
		}
	})
}
