package difftest

import "strconv"

// The classes of merge semantics and of namespaces (gen_class.go lists them):
// a built-in kind's keyed lists under server-side apply and strategic merge
// (a Service's ports, keyed by port and protocol), ownerReferences applied
// by two managers (each reference one atomic item), and a namespace's life
// (a create in a missing one, a deletion, a create in one terminating).

// servicePort is a valid port of a Service: named (a Service with more than
// one port must name each), its protocol and targetPort given, so that the
// real server defaults nothing inside it.
func (g *gen) servicePort(port int) map[string]any {
	return map[string]any{"name": "p" + strconv.Itoa(port), "port": port, "protocol": "TCP", "targetPort": pick(g, []int{port, port + 1000})}
}

// service is a Service named s with some of the ports 80 and 81, never none
// (the real server requires one).
func (g *gen) service(withSelector bool) map[string]any {
	var ports []any
	for _, p := range []int{80, 81} {
		if g.rnd.IntN(2) == 0 {
			ports = append(ports, g.servicePort(p))
		}
	}
	if len(ports) == 0 {
		ports = []any{g.servicePort(pick(g, []int{80, 81}))}
	}
	spec := map[string]any{"ports": ports}
	if withSelector {
		spec["selector"] = map[string]any{"app": pick(g, []string{"a", "b"})}
	}
	return map[string]any{"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": "s"}, "spec": spec}
}

func (g *gen) mergeKeys(string) []Step {
	steps := []Step{{Do: "raw", Res: "services", Method: "POST", Path: coll("services"), Body: js(g.service(true))}}
	if g.rnd.IntN(3) == 0 {
		steps[0] = Step{Do: "raw", Res: "services", Method: "PATCH", Type: "apply", Name: "s", Query: "fieldManager=alice", Body: js(g.service(true))}
	}
	for range 1 + g.rnd.IntN(3) {
		switch g.rnd.IntN(4) {
		case 0, 1:
			q := "fieldManager=" + pick(g, []string{"alice", "bob"})
			if g.rnd.IntN(3) == 0 {
				q += "&force=true"
			}
			steps = append(steps, Step{Do: "raw", Res: "services", Method: "PATCH", Type: "apply", Name: "s", Query: q, Body: js(g.service(g.rnd.IntN(2) == 0))})
		case 2:
			steps = append(steps, Step{Do: "raw", Res: "services", Method: "PATCH", Type: "strategic", Name: "s",
				Body: js(map[string]any{"spec": map[string]any{"ports": []any{g.servicePort(pick(g, []int{80, 81, 82}))}}})})
		default:
			steps = append(steps, Step{Do: "raw", Res: "services", Method: "PATCH", Type: "merge", Name: "s",
				Body: js(map[string]any{"spec": map[string]any{"ports": []any{g.servicePort(pick(g, []int{80, 81}))}}})})
		}
	}
	return append(steps, Step{Do: "raw", Res: "services", Method: "GET", Name: "s"})
}

// ownerRef is a reference to one of two owners; only the first is ever the
// controller, so that no object has two (the real server refuses that).
func (g *gen) ownerRef() map[string]any {
	i := g.rnd.IntN(2)
	ref := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": "owner" + strconv.Itoa(i+1),
		"uid": "00000000-0000-0000-0000-00000000000" + strconv.Itoa(i+1)}
	if i == 0 && g.rnd.IntN(3) > 0 {
		ref["controller"] = g.rnd.IntN(3) > 0
	}
	if g.rnd.IntN(3) == 0 {
		ref["blockOwnerDeletion"] = true
	}
	return ref
}

func (g *gen) ownerRefs(res string) []Step {
	cm := func() map[string]any {
		return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "a", "ownerReferences": []any{g.ownerRef()}}}
	}
	steps := []Step{{Do: "create", Res: "configmaps", Body: js(g.object("configmaps", "a", true))}}
	for range 1 + g.rnd.IntN(3) {
		switch g.rnd.IntN(3) {
		case 0, 1:
			steps = append(steps, Step{Do: "apply", Res: "configmaps", Name: "a", Mgr: pick(g, []string{"alice", "bob"}), Force: g.rnd.IntN(4) == 0, Body: js(cm())})
		default:
			steps = append(steps, Step{Do: "patch", Res: "configmaps", Name: "a", Type: pick(g, []string{"merge", "strategic"}),
				Body: js(map[string]any{"metadata": map[string]any{"ownerReferences": []any{g.ownerRef()}}})})
		}
	}
	return append(steps, Step{Do: "get", Res: "configmaps", Name: "a"})
}

// namespaces creates a namespace of its own ({ns}-x), writes in it, deletes
// it and writes again; and writes in one that does not exist ({ns}-none).
func (g *gen) namespaces(res string) []Step {
	cm := func(name string) string {
		return js(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": name}, "data": g.data()})
	}
	in := func(ns string) string { return "/api/v1/namespaces/" + ns + "/configmaps" }
	steps := []Step{
		{Do: "raw", Res: "namespaces", Method: "POST", Path: "/api/v1/namespaces", Body: `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"{ns}-x"}}`},
		{Do: "raw", Res: "configmaps", Method: "POST", Path: in("{ns}-x"), Body: cm("a")},
	}
	if g.rnd.IntN(2) == 0 {
		steps = append(steps, Step{Do: "raw", Res: "configmaps", Method: pick(g, []string{"POST", "PATCH"}), Path: in("{ns}-none"), Body: cm("a")})
		if s := &steps[len(steps)-1]; s.Method == "PATCH" {
			s.Path, s.Type, s.Query = in("{ns}-none")+"/a", "apply", "fieldManager=alice"
		}
	}
	steps = append(steps, Step{Do: "raw", Res: "namespaces", Method: "DELETE", Path: "/api/v1/namespaces/{ns}-x"})
	for range 1 + g.rnd.IntN(3) {
		switch g.rnd.IntN(5) {
		case 0:
			steps = append(steps, Step{Do: "raw", Res: "configmaps", Method: "POST", Path: in("{ns}-x"), Body: cm(pick(g, []string{"a", "b"}))})
		case 1:
			steps = append(steps, Step{Do: "raw", Res: "configmaps", Method: "PUT", Path: in("{ns}-x") + "/a", Body: cm("a")})
		case 2:
			name := pick(g, []string{"a", "b"})
			steps = append(steps, Step{Do: "raw", Res: "configmaps", Method: "PATCH", Type: "apply", Path: in("{ns}-x") + "/" + name, Query: "fieldManager=alice", Body: cm(name)})
		case 3:
			steps = append(steps, Step{Do: "raw", Res: "namespaces", Method: "GET", Path: "/api/v1/namespaces/{ns}-x"})
		default:
			steps = append(steps, Step{Do: "raw", Res: "namespaces", Method: "DELETE", Path: "/api/v1/namespaces/{ns}-x"})
		}
	}
	return steps
}
