package difftest

// The patches a sequence sends: JSON merge patches, JSON patches and strategic
// merge patches, each built of a few fragments drawn from the universe.

func (g *gen) patch(res, name string) Step {
	s := Step{Do: "patch", Res: res, Name: name, Type: pick(g, []string{"merge", "merge", "json", "strategic", "strategic"})}
	s.Sub = g.maybeStatus(res, 4)
	switch s.Type {
	case "json":
		s.Body = js(g.jsonPatch(res, s.Sub))
	case "strategic":
		s.Body = js(g.strategicPatch(res, s.Sub))
	default:
		s.Body = js(g.mergePatch(res, s.Sub))
	}
	return s
}

// mergePatch is one to three fragments, merged: labels, annotations,
// finalizers, and the kind's own fields (set, or deleted with null).
func (g *gen) mergePatch(res, sub string) map[string]any {
	p := map[string]any{}
	for range 1 + g.rnd.IntN(3) {
		merge(p, g.fragment(res, sub, false))
	}
	return p
}

// strategicPatch is a merge patch with what only strategic merge has: lists
// merged by key (containers by name, finalizers as a set) and directives.
func (g *gen) strategicPatch(res, sub string) map[string]any {
	p := map[string]any{}
	for range 1 + g.rnd.IntN(3) {
		merge(p, g.fragment(res, sub, true))
	}
	// A patch that both sets finalizers and deletes from them gets a result
	// that depends on Go's map order in kube-apiserver: it is not sent.
	if m, ok := p["metadata"].(map[string]any); ok && m["finalizers"] != nil {
		delete(m, "$deleteFromPrimitiveList/finalizers")
	}
	return p
}

// fragment is one part of a merge or strategic merge patch.
func (g *gen) fragment(res, sub string, strategic bool) map[string]any {
	if sub == "status" && (res == statusOnly || g.rnd.IntN(4) > 0) {
		return map[string]any{"status": g.status(res)}
	}
	switch g.rnd.IntN(6) {
	case 0:
		return meta("labels", map[string]any{pick(g, []string{"sel", "x"}): pick[any](g, []any{"on", "off", "1", nil})})
	case 1:
		return meta("annotations", map[string]any{"note": pick[any](g, []any{"a", "b", nil})})
	case 2:
		if strategic && g.rnd.IntN(3) == 0 {
			return map[string]any{"metadata": map[string]any{"$deleteFromPrimitiveList/finalizers": []any{pick(g, []string{"example.com/f1", "example.com/f2"})}}}
		}
		return meta("finalizers", pick[any](g, []any{[]any{"example.com/f1"}, []any{"example.com/f2"}, []any{"example.com/f1", "example.com/f2"}, nil}))
	}
	switch res {
	case "configmaps":
		d := map[string]any{pick(g, []string{"k1", "k2", "k3"}): pick[any](g, []any{"x", "y", nil})}
		if strategic && g.rnd.IntN(5) == 0 {
			d = map[string]any{"$patch": "replace", "k1": "x"}
		}
		return map[string]any{"data": d}
	case "widgets":
		switch g.rnd.IntN(3) {
		case 0:
			return map[string]any{"spec": map[string]any{"size": pick[any](g, []any{0, 1, 2, nil})}}
		case 1:
			return map[string]any{"spec": map[string]any{"tags": pick[any](g, []any{[]any{"a"}, []any{"b", "a"}, nil})}}
		}
		return map[string]any{"spec": map[string]any{"opts": map[string]any{pick(g, []string{"o1", "o2"}): pick[any](g, []any{"x", "y", nil})}}}
	case "deployments":
		switch g.rnd.IntN(4) {
		case 0:
			return map[string]any{"spec": map[string]any{"replicas": 1 + g.rnd.IntN(3)}}
		case 1:
			return template(map[string]any{"metadata": map[string]any{"annotations": map[string]any{"t": pick[any](g, []any{"1", "2", nil})}}})
		}
		return template(map[string]any{"spec": map[string]any{"containers": g.containersPatch(strategic)}})
	default: // pods: only the image of c1 may change
		c := map[string]any{"name": "c1", "image": g.image()}
		return map[string]any{"spec": map[string]any{"containers": []any{c}}}
	}
}

// containersPatch is a Deployment's containers in a patch. In a merge patch
// the list replaces the old one; in a strategic one each item merges with the
// container of its name, or deletes it.
func (g *gen) containersPatch(strategic bool) []any {
	if !strategic {
		l := []any{g.container("c1")}
		if g.rnd.IntN(2) == 0 {
			l = append(l, g.container("c2"))
		}
		return l
	}
	switch g.rnd.IntN(5) {
	case 0:
		return []any{map[string]any{"name": "c2", "$patch": "delete"}}
	case 1:
		return []any{map[string]any{"name": "c2", "image": g.image()}, map[string]any{"name": "c1", "image": g.image()}}
	case 2:
		return []any{map[string]any{"name": "c1", "env": []any{map[string]any{"name": "E", "value": pick(g, []string{"1", "2"})}}}}
	}
	return []any{map[string]any{"name": pick(g, []string{"c1", "c2"}), "image": g.image()}}
}

// jsonPatch is one to three RFC 6902 operations: on labels, data, finalizers,
// with a test now and then that may fail.
func (g *gen) jsonPatch(res, sub string) []any {
	var ops []any
	for range 1 + g.rnd.IntN(3) {
		ops = append(ops, g.jsonOp(res, sub))
	}
	return ops
}

func (g *gen) jsonOp(res, sub string) map[string]any {
	op := func(o, path string, v any) map[string]any {
		m := map[string]any{"op": o, "path": path}
		if o != "remove" {
			m["value"] = v
		}
		return m
	}
	if sub == "status" {
		return op(pick(g, []string{"add", "replace"}), "/status", g.status(res))
	}
	switch g.rnd.IntN(5) {
	case 0:
		return op(pick(g, []string{"add", "replace", "remove", "test"}), "/metadata/labels/x", pick(g, []string{"1", "2"}))
	case 1:
		return op("add", "/metadata/labels", map[string]any{"x": pick(g, []string{"1", "2"})})
	case 2:
		switch g.rnd.IntN(3) {
		case 0:
			return op("add", "/metadata/finalizers/-", pick(g, []string{"example.com/f1", "example.com/f2"}))
		case 1:
			return op("remove", "/metadata/finalizers/0", nil)
		}
		return op("add", "/metadata/finalizers", []any{"example.com/f1"})
	}
	switch res {
	case "configmaps":
		return op(pick(g, []string{"add", "replace", "remove", "test"}), "/data/"+pick(g, []string{"k1", "k2"}), pick(g, []string{"x", "y"}))
	case "widgets":
		return op(pick(g, []string{"add", "replace", "remove", "test"}), "/spec/size", g.rnd.IntN(3))
	case "deployments":
		return op(pick(g, []string{"replace", "test"}), "/spec/replicas", 1+g.rnd.IntN(3))
	}
	return op(pick(g, []string{"replace", "test"}), "/spec/containers/0/image", g.image())
}

func meta(field string, v any) map[string]any {
	return map[string]any{"metadata": map[string]any{field: v}}
}

func template(t map[string]any) map[string]any {
	return map[string]any{"spec": map[string]any{"template": t}}
}

// merge merges fragment f into p, objects member by member.
func merge(p, f map[string]any) {
	for k, v := range f {
		pm, ok1 := p[k].(map[string]any)
		fm, ok2 := v.(map[string]any)
		if ok1 && ok2 {
			merge(pm, fm)
			continue
		}
		p[k] = v
	}
}
