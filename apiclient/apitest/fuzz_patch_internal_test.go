package apitest

import (
	"testing"
	"time"
)

// FuzzPatch: what a client sends to be merged into a stored object — a JSON
// merge patch, a JSON patch, a strategic merge patch, an apply configuration
// — and managedFields it sends or the server stored, never panic the server,
// whatever their shape; the verbs answer 4xx for what these refuse. Seeds in
// testdata/fuzz/FuzzPatch as well.
func FuzzPatch(f *testing.F) {
	live := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","finalizers":["a","a"],"managedFields":[{"manager":"m","operation":"Update","apiVersion":"apps/v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{}}}}]},"spec":{"replicas":1,"template":{"spec":{"containers":[{"name":"c1","image":"i"},{"name":"c1","env":[{"name":"E"}]}]}}}}`
	f.Add(live, `{"spec":{"template":{"spec":{"containers":[{"name":"c2","$patch":"delete"},{"name":"c1","image":"j"}],"$setElementOrder/containers":[{"name":"c1"}]}}}}`, uint8(0))
	f.Add(live, `[{"op":"move","from":"/spec/replicas","path":"/metadata/finalizers/-"},{"op":"copy","from":"/spec","path":"/spec/template/x"},{"op":"test","path":"/x","value":null}]`, uint8(1))
	f.Add(live, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","labels":{}},"spec":{"template":{"spec":{"containers":[{"name":"c1"},{"name":"c1"}]}}}}`, uint8(2))
	f.Add(live, `{"metadata":{"$deleteFromPrimitiveList/finalizers":["a"],"$retainKeys":["name"]},"spec":null}`, uint8(3))
	f.Add(`{"metadata":{"managedFields":[{"fieldsV1":{"f:a":{"k:{bad":{}}}}]}}`, `{"$patch":"replace"}`, uint8(2))
	f.Fuzz(func(t *testing.T, liveJSON, patchJSON string, how uint8) {
		var old object
		if decodeJSON([]byte(liveJSON), &old) != nil || old == nil {
			return
		}
		var p any
		if decodeJSON([]byte(patchJSON), &p) != nil {
			return
		}
		now := time.Unix(0, 0)
		tg := target{group: "apps", version: "v1", resource: "deployments", name: "web"}
		for _, st := range []strategy{{schema: builtinSchema(tg), status: true, generation: true}, {custom: true, schema: customRoot(), status: true}} {
			switch how % 4 {
			case 0:
				if o, err := patched("application/strategic-merge-patch+json", old, p, st); err == nil {
					trackUpdate(st, tg, old, st.roundTrip(o), "m", now).encode()
				}
			case 1:
				if o, err := patched("application/json-patch+json", old, p, st); err == nil {
					trackUpdate(st, tg, old, o, "m", now)
				}
			case 2:
				if cfg, ok := p.(map[string]any); ok {
					applyConfig(st, tg, deepCopy(old), object(cfg), "m", how&4 != 0, now)
				}
			default:
				if o, err := patched("application/merge-patch+json", old, p, st); err == nil {
					st.validate(tg, "Deployment", o)
					compareFields(old, o, st.schema).added.paths()
				}
			}
		}
	})
}
