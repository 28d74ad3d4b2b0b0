package difftest

import (
	"strings"
)

// The classes of round three (issue 37): a custom resource checked, pruned
// and defaulted by its CRD's structural schema (sprockets, universe.go);
// names, labels, annotations and finalizers validated; immutable ConfigMaps
// and Secrets; the scale subresource of a custom resource.

// sprocket is a Sprocket named name with some of its schema's fields drawn.
func (g *gen) sprocket(name string) map[string]any {
	spec := map[string]any{}
	for _, f := range []string{"replicas", "size", "nested", "tags", "free", "embedded", "port"} {
		if g.rnd.IntN(3) > 0 {
			continue
		}
		switch f {
		case "replicas":
			spec[f] = pick(g, []int{1, 3})
		case "size":
			spec[f] = pick(g, []string{"s", "l"})
		case "nested":
			spec[f] = pick(g, []map[string]any{{}, {"a": "x"}, {"a": "y", "b": 5}})
		case "tags":
			spec[f] = []any{pick(g, []string{"t1", "t2"})}
		case "free":
			spec[f] = map[string]any{"q": map[string]any{"r": 1}}
		case "embedded":
			spec[f] = map[string]any{"apiVersion": "v1", "kind": "X", "metadata": map[string]any{"name": "e", "labels": map[string]any{"k": "v"}}, "spec": map[string]any{"x": "y"}}
		case "port":
			spec[f] = pick(g, []any{80, "http"})
		}
	}
	return map[string]any{"apiVersion": "difftest.kubewire.dev/v1", "kind": "Sprocket", "metadata": map[string]any{"name": name}, "spec": spec}
}

// spoil changes obj as one probe of the schema: a field the schema does not
// have (at the top, in metadata, in spec, in a nested object, in an embedded
// resource and its metadata; kept in a preserve-unknown-fields object), a
// value of the wrong type, a null where a default stands, a status the
// status subresource keeps out.
func (g *gen) spoil(obj map[string]any) {
	spec := obj["spec"].(map[string]any)
	switch g.rnd.IntN(12) {
	case 0:
		obj["extra"] = "x"
	case 1:
		obj["metadata"].(map[string]any)["extra"] = "x"
	case 2:
		spec["bogus"] = map[string]any{"deep": 1}
	case 3:
		spec["nested"] = map[string]any{"zz": 1}
	case 4:
		spec["embedded"] = map[string]any{"apiVersion": "v1", "kind": "X", "metadata": map[string]any{"name": "e", "junk": 1}, "spec": map[string]any{"x": "y", "w": 1}, "other": 2}
	case 5:
		spec["free"] = map[string]any{"anything": []any{1, "two"}}
	case 6:
		f, v := pick(g, []string{"replicas", "size", "tags", "ratio", "on", "labels", "nested", "port"}), any("three")
		switch f {
		case "size":
			v = 5
		case "labels":
			v = map[string]any{"a": 1}
		case "port":
			v = true
		}
		spec[f] = v
	case 7:
		spec[pick(g, []string{"replicas", "size", "nested"})] = nil
	case 8:
		obj["status"] = map[string]any{"replicas": 2, "bogus": 1}
	case 9:
		spec["ratio"], spec["on"], spec["labels"] = 0.5, true, map[string]any{"a": "b"}
	}
}

func (g *gen) crdSchema(string) []Step {
	const res = "sprockets"
	obj := g.sprocket("a")
	g.spoil(obj)
	q := ""
	if v := pick(g, []string{"", "", "Ignore", "Warn", "Strict"}); v != "" {
		q = "fieldValidation=" + v
	}
	var steps []Step
	switch g.rnd.IntN(6) {
	case 0, 1:
		steps = []Step{{Do: "raw", Res: res, Method: "POST", Path: coll(res), Query: q, Body: js(obj)}}
	case 2:
		steps = []Step{
			{Do: "create", Res: res, Body: js(g.sprocket("a"))},
			{Do: "update", Res: res, Name: "a", RV: "latest", Body: js(obj)},
		}
	case 3:
		// A merge patch: of spec alone, so that nulls delete (and defaults
		// come back).
		delete(obj, "apiVersion")
		delete(obj, "kind")
		delete(obj, "metadata")
		steps = []Step{
			{Do: "create", Res: res, Body: js(g.sprocket("a"))},
			{Do: "raw", Res: res, Method: "PATCH", Type: "merge", Name: "a", Query: q, Body: js(obj)},
		}
	case 4:
		if q != "" {
			q += "&"
		}
		steps = []Step{{Do: "raw", Res: res, Method: "PATCH", Type: "apply", Name: "a", Query: q + "fieldManager=alice", Body: js(obj)}}
	default:
		steps = []Step{
			{Do: "create", Res: res, Body: js(g.sprocket("a"))},
			{Do: "raw", Res: res, Method: "PATCH", Type: "merge", Name: "a", Sub: "status", Query: q,
				Body: pick(g, []string{`{"status":{"replicas":2}}`, `{"status":{"replicas":2,"bogus":1}}`, `{"status":{"replicas":"two"}}`, `{"spec":{"size":"l"},"status":{"phase":"P"}}`})},
		}
	}
	return append(steps, Step{Do: "raw", Res: res, Method: "GET", Name: "a"})
}

// metaValidation probes what every object's metadata is checked for, in a
// create and in a merge patch of an object that exists.
func (g *gen) metaValidation(res string) []Step {
	obj := g.object(res, "a", true)
	if g.rnd.IntN(2) == 0 {
		m := map[string]any{}
		g.badMeta(m, 2)
		return []Step{
			{Do: "create", Res: res, Body: js(obj)},
			{Do: "raw", Res: res, Method: "PATCH", Type: "merge", Name: "a", Body: js(map[string]any{"metadata": m})},
			{Do: "raw", Res: res, Method: "GET", Name: "a"},
		}
	}
	m := obj["metadata"].(map[string]any)
	delete(m, "finalizers")
	g.badMeta(m, 0)
	q := ""
	if m["name"] == nil {
		// A name made from generateName is the servers' to draw: a dry
		// run, whose answer is compared without it.
		q = "dryRun=All"
	}
	return []Step{{Do: "raw", Res: res, Method: "POST", Path: coll(res), Query: q, Body: js(obj)}}
}

// badMeta sets one of metadata m's parts to a value drawn from valid and
// invalid ones, from case from on (2: not the name).
func (g *gen) badMeta(m map[string]any, from int) {
	switch from + g.rnd.IntN(6-from) {
	case 0:
		m["name"] = pick(g, []string{"Bad_Name", "a..b", "-a", "a.b-c", strings.Repeat("n", 254), strings.Repeat("n", 253)})
	case 1:
		delete(m, "name")
		m["generateName"] = pick(g, []string{"Bad_", "ok-", "x."})
	case 2:
		m["labels"] = map[string]any{pick(g, []string{"bad key!", "a/b/c", "-x", "/b", "a/", "ex.com/ok", "Ex.com/ok", strings.Repeat("k", 64)}): pick(g, []string{"v", "bad value!", "", strings.Repeat("v", 64), strings.Repeat("v", 63)})}
	case 3:
		m["annotations"] = map[string]any{pick(g, []string{"bad key!", "a/b/c", "ok", "ex.com/ok"}): "v"}
	case 4:
		// At or just over the 256 KiB all annotations may hold.
		m["annotations"] = map[string]any{"a": strings.Repeat("x", pick(g, []int{262140, 262141})), "bb": "y"}
	default:
		m["finalizers"] = []any{pick(g, []string{"foo", "bad/fin/x", "a/", "example.com/ok", "kubernetes", "orphan", "Example.com/x", "kubernetes.io/x"})}
	}
}

// immutable probes ConfigMaps and Secrets with immutable set.
func (g *gen) immutable(string) []Step {
	res := pick(g, []string{"configmaps", "secrets"})
	obj := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "im"}, "data": map[string]any{"k1": "x"}}
	key := "data"
	if res == "secrets" {
		obj["kind"], obj["data"] = "Secret", map[string]any{"k1": "eA=="}
		key = pick(g, []string{"data", "stringData"})
	}
	if v := pick(g, []any{true, true, false, nil}); v != nil {
		obj["immutable"] = v
	}
	patch := pick(g, []string{
		`{"` + key + `":{"k1":"eQ=="}}`, `{"` + key + `":{"k2":"eQ=="}}`, `{"data":null}`, `{"binaryData":{"b":"eA=="}}`,
		`{"immutable":false}`, `{"immutable":true}`, `{"immutable":null}`, `{"immutable":true,"data":{"k1":"eQ=="}}`,
		`{"metadata":{"labels":{"x":"1"}}}`, `{"type":"Other"}`,
	})
	steps := []Step{
		{Do: "raw", Res: res, Method: "POST", Path: coll(res), Body: js(obj)},
		{Do: "raw", Res: res, Method: "PATCH", Type: "merge", Name: "im", Body: patch},
	}
	if g.rnd.IntN(2) == 0 {
		// A whole update, the data changed or not.
		obj["metadata"].(map[string]any)["labels"] = map[string]any{"x": "2"}
		if g.rnd.IntN(2) == 0 {
			obj["data"] = map[string]any{"k1": "eg=="}
		}
		steps = append(steps, Step{Do: "raw", Res: res, Method: "PUT", Name: "im", Body: js(obj)})
	}
	return append(steps, Step{Do: "raw", Res: res, Method: "GET", Name: "im"})
}

// scale probes a custom resource's scale subresource.
func (g *gen) scale(string) []Step {
	const res = "sprockets"
	obj := g.sprocket("a")
	steps := []Step{{Do: "create", Res: res, Body: js(obj)}}
	if g.rnd.IntN(2) == 0 {
		steps = append(steps, Step{Do: "raw", Res: res, Method: "PATCH", Type: "merge", Name: "a", Sub: "status",
			Body: pick(g, []string{`{"status":{"replicas":2,"selector":"app=a"}}`, `{"status":{"replicas":1}}`})})
	}
	switch g.rnd.IntN(4) {
	case 0:
		steps = append(steps, Step{Do: "raw", Res: res, Method: "GET", Name: "a", Sub: "scale"})
	case 1:
		steps = append(steps, Step{Do: "raw", Res: res, Method: "PATCH", Type: pick(g, []string{"merge", "json"}), Name: "a", Sub: "scale",
			Body: pick(g, []string{`{"spec":{"replicas":5}}`, `{"spec":{"replicas":-1}}`})})
		if steps[len(steps)-1].Type == "json" {
			steps[len(steps)-1].Body = `[{"op":"replace","path":"/spec/replicas","value":4}]`
		}
	case 2:
		rv := pick(g, []string{"", `"resourceVersion":"1",`})
		steps = append(steps, Step{Do: "raw", Res: res, Method: "PUT", Name: "a", Sub: "scale",
			Body: `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{` + rv + `"name":"a"},"spec":{"replicas":` + pick(g, []string{"0", "4"}) + `}}`})
	default:
		steps = append(steps, Step{Do: "raw", Res: res, Method: "PATCH", Type: "apply", Name: "a", Sub: "scale", Query: "fieldManager=alice",
			Body: `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"a"},"spec":{"replicas":6}}`})
	}
	return append(steps, Step{Do: "raw", Res: res, Method: "GET", Name: "a"})
}
