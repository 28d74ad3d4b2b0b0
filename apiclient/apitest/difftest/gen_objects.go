package difftest

// The objects of the universe, drawn: whole ones for creates and updates,
// parts for apply configurations, statuses.

// typed is the start of any body: apiVersion, kind, metadata.name.
func (g *gen) typed(res, name string) map[string]any {
	r := kinds[res].res
	return map[string]any{"apiVersion": r.GroupVersion(), "kind": r.Kind, "metadata": map[string]any{"name": name}}
}

// object is a whole object of res named name, drawn from the universe's
// values. full draws every part (a create's or update's body); otherwise it is
// an apply configuration, which draws parts of it only, though always what the
// real server's validation requires of a kind.
func (g *gen) object(res, name string, full bool) map[string]any {
	obj := g.typed(res, name)
	m := obj["metadata"].(map[string]any)
	if full || g.rnd.IntN(2) == 0 {
		m["labels"] = g.labels()
	}
	if g.rnd.IntN(4) == 0 {
		m["annotations"] = map[string]any{"note": pick(g, []string{"a", "b"})}
	}
	if full && g.rnd.IntN(4) == 0 {
		m["finalizers"] = []any{pick(g, []string{"example.com/f1", "example.com/f2"})}
	}
	switch res {
	case "configmaps":
		if full || g.rnd.IntN(3) > 0 {
			obj["data"] = g.data()
		}
	case "widgets":
		obj["spec"] = g.widgetSpec(full)
	case "deployments":
		obj["spec"] = g.deploymentSpec(name)
	case "pods":
		obj["spec"] = map[string]any{"containers": []any{map[string]any{"name": "c1", "image": g.image()}}}
	}
	return obj
}

func (g *gen) labels() map[string]any {
	l := map[string]any{}
	if g.rnd.IntN(2) == 0 {
		l["sel"] = pick(g, []string{"on", "on", "off"})
	}
	if g.rnd.IntN(2) == 0 {
		l["x"] = pick(g, []string{"1", "2"})
	}
	return l
}

func (g *gen) data() map[string]any {
	d := map[string]any{}
	for _, k := range []string{"k1", "k2", "k3"} {
		if g.rnd.IntN(2) == 0 {
			d[k] = pick(g, []string{"x", "y"})
		}
	}
	return d
}

func (g *gen) image() string { return pick(g, []string{"img:1", "img:1", "img:2"}) }

func (g *gen) widgetSpec(full bool) map[string]any {
	s := map[string]any{}
	if full || g.rnd.IntN(2) == 0 {
		s["size"] = g.rnd.IntN(3)
	}
	if full || g.rnd.IntN(2) == 0 {
		s["tags"] = pick(g, [][]any{{"a"}, {"a", "b"}, {"b"}})
	}
	if full || g.rnd.IntN(2) == 0 {
		o := map[string]any{}
		for _, k := range []string{"o1", "o2"} {
			if g.rnd.IntN(2) == 0 {
				o[k] = pick(g, []string{"x", "y"})
			}
		}
		s["opts"] = o
	}
	return s
}

// deploymentSpec is a valid Deployment spec: its selector matches its
// template, whose containers are c1 and maybe c2.
func (g *gen) deploymentSpec(name string) map[string]any {
	containers := []any{g.container("c1")}
	if g.rnd.IntN(3) == 0 {
		containers = append(containers, g.container("c2"))
	}
	tmeta := map[string]any{"labels": map[string]any{"app": name}}
	if g.rnd.IntN(4) == 0 {
		tmeta["annotations"] = map[string]any{"t": pick(g, []string{"1", "2"})}
	}
	return map[string]any{
		"replicas": 1 + g.rnd.IntN(3),
		"selector": map[string]any{"matchLabels": map[string]any{"app": name}},
		"template": map[string]any{"metadata": tmeta, "spec": map[string]any{"containers": containers}},
	}
}

func (g *gen) container(name string) map[string]any {
	c := map[string]any{"name": name, "image": g.image()}
	if g.rnd.IntN(3) == 0 {
		c["env"] = []any{map[string]any{"name": "E", "value": pick(g, []string{"1", "2"})}}
	}
	return c
}

// status is a valid status of res (a Deployment's ready replicas never exceed
// its replicas; a Pod's phase is never terminal, which it could not leave).
func (g *gen) status(res string) map[string]any {
	switch res {
	case "deployments":
		r := 1 + g.rnd.IntN(2)
		return map[string]any{"replicas": r, "readyReplicas": r, "observedGeneration": 1 + g.rnd.IntN(3)}
	case "pods":
		st := map[string]any{"phase": pick(g, []string{"Pending", "Running", "Running"})}
		if g.rnd.IntN(2) == 0 {
			st["conditions"] = []any{map[string]any{"type": "Ready", "status": pick(g, []string{"True", "False"})}}
		}
		return st
	default:
		st := map[string]any{"phase": pick(g, []string{"Ready", "Pending"})}
		if g.rnd.IntN(2) == 0 {
			st["observedGeneration"] = 1 + g.rnd.IntN(3)
		}
		return st
	}
}
