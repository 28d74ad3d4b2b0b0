package difftest

import (
	"encoding/json"
	"math/rand/v2"
)

// Generate returns the sequence of seed, always the same one. A sequence works
// on one or two resources of the universe and two names, a, b; its steps are
// drawn with weights that favour writes to objects that exist, since that is
// where the servers have most to agree on.
func Generate(seed uint64) Sequence {
	g := &gen{rnd: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	res := []string{g.pickKind()}
	if g.rnd.IntN(3) == 0 {
		if other := g.pickKind(); other != res[0] {
			res = append(res, other)
		}
	}
	n := 3 + g.rnd.IntN(18)
	seq := Sequence{Seed: seed}
	for range n {
		seq.Steps = append(seq.Steps, g.step(res[g.rnd.IntN(len(res))]))
	}
	return seq
}

type gen struct {
	rnd *rand.Rand
	// generated: a create with generateName was drawn. One a sequence: the
	// names the servers draw sort differently, and two would page apart.
	generated bool
}

func (g *gen) pickKind() string {
	return pick(g, []string{"configmaps", "configmaps", "configmaps", "widgets", "widgets", "deployments", "deployments", "pods"})
}

// weighted is one kind of step and how often it comes.
type weighted struct {
	w    int
	make func(g *gen, res, name string) Step
}

var steps = []weighted{
	{12, (*gen).create},
	{9, (*gen).update},
	{14, (*gen).patch},
	{14, (*gen).apply},
	{8, (*gen).delete},
	{4, func(g *gen, res, name string) Step {
		return Step{Do: "get", Res: res, Name: name, Sub: g.maybeStatus(res, 5)}
	}},
	{6, (*gen).list},
	{3, func(g *gen, res, name string) Step { return Step{Do: "next", Res: res} }},
	{3, func(g *gen, res, name string) Step {
		return Step{Do: "watch", Res: res, Name: name, RV: pick(g, []string{"latest", "latest", "stale"})}
	}},
	{3, func(g *gen, res, name string) Step {
		return Step{Do: "stream", Res: res, Query: pick(g, []string{"", "labelSelector=sel%3Don"})}
	}},
	{1, func(g *gen, res, name string) Step {
		if res == "pods" {
			// kube-apiserver v1.37 serves a watch of pods from an old
			// version out of etcd rather than answer 410 (doc.go).
			return Step{Do: "get", Res: res, Name: name}
		}
		return Step{Do: "expired", Res: res}
	}},
	{3, func(g *gen, res, name string) Step {
		return Step{Do: "burst", Res: res, Name: name, N: 2 + g.rnd.IntN(7)}
	}},
}

func (g *gen) step(res string) Step {
	total := 0
	for _, s := range steps {
		total += s.w
	}
	i := g.rnd.IntN(total)
	name := pick(g, []string{"a", "a", "b"})
	for _, s := range steps {
		if i < s.w {
			st := s.make(g, res, name)
			switch st.Do {
			case "create", "update", "patch", "apply", "delete":
				st.Dry = g.rnd.IntN(12) == 0
			}
			return st
		}
		i -= s.w
	}
	panic("unreachable")
}

// statusOnly: a custom resource's status writes are patches and applies of
// status alone. kube-apiserver 1.32 makes such a writer an owner of the
// metadata it sent and takes from the other owners the metadata it left out
// (a PUT leaves out all of it), though the write changes none of it; 1.37
// does not, and apitest follows 1.37.
const statusOnly = "widgets"

// maybeStatus returns "status" one time in n for a kind with a status
// subresource (and, rarely, for one without: the server must say 404).
func (g *gen) maybeStatus(res string, n int) string {
	if kinds[res].status && g.rnd.IntN(n) == 0 {
		return "status"
	}
	if !kinds[res].status && g.rnd.IntN(8*n) == 0 {
		return "status"
	}
	return ""
}

func (g *gen) create(res, name string) Step {
	obj := g.object(res, name, true)
	if !g.generated && g.rnd.IntN(12) == 0 {
		g.generated = true
		m := obj["metadata"].(map[string]any)
		delete(m, "name")
		m["generateName"] = "gen-"
	}
	return Step{Do: "create", Res: res, Body: js(obj)}
}

func (g *gen) update(res, name string) Step {
	sub := g.maybeStatus(res, 3)
	if res == statusOnly {
		sub = "" // see statusOnly
	}
	obj := g.object(res, name, true)
	if sub == "status" {
		obj["status"] = g.status(res)
	}
	return Step{Do: "update", Res: res, Name: name, Sub: sub, Body: js(obj), RV: pick(g, []string{"latest", "latest", "latest", "latest", "stale", "", "bogus"})}
}

func (g *gen) apply(res, name string) Step {
	s := Step{Do: "apply", Res: res, Name: name, Mgr: pick(g, []string{"alice", "alice", "bob"}), Force: g.rnd.IntN(5) == 0}
	if g.rnd.IntN(8) == 0 {
		s.RV = pick(g, []string{"latest", "stale"}) // a conditional apply
	}
	s.Sub = g.maybeStatus(res, 4)
	if s.Sub == "status" {
		obj := g.typed(res, name)
		obj["status"] = g.status(res)
		s.Body = js(obj)
		return s
	}
	s.Body = js(g.object(res, name, false))
	return s
}

func (g *gen) delete(res, name string) Step {
	s := Step{Do: "delete", Res: res, Name: name}
	switch g.rnd.IntN(6) {
	case 0:
		s.RV = pick(g, []string{"latest", "stale"})
	case 1:
		s.UID = pick(g, []string{"latest", "bogus"})
	}
	return s
}

func (g *gen) list(res, name string) Step {
	switch {
	case g.rnd.IntN(6) == 0:
		// The collection as it was when a's or b's version was current.
		return Step{Do: "list", Res: res, Name: name, RV: pick(g, []string{"latest", "stale"})}
	case res == "pods" && g.rnd.IntN(3) == 0:
		return Step{Do: "list", Res: res, Query: pick(g, []string{
			"fieldSelector=status.phase%3DRunning", "fieldSelector=status.phase%21%3DPending",
			"fieldSelector=spec.nodeName%3D", // apitest refuses spec.restartPolicy and the like (doc.go)
		})}
	}
	return Step{Do: "list", Res: res, Query: pick(g, []string{
		"", "", "limit=1", "limit=1", "limit=2",
		"labelSelector=sel%3Don", "labelSelector=sel%21%3Don", "labelSelector=x+in+%281%29", "labelSelector=%21x", "labelSelector=x",
		"fieldSelector=metadata.name%3Da", "fieldSelector=metadata.name%21%3Da", "fieldSelector=metadata.namespace%3Dnope",
		"labelSelector=sel%3Don&limit=1", "fieldSelector=spec.bogus%3D1",
	})}
}

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

func pick[T any](g *gen, from []T) T { return from[g.rnd.IntN(len(from))] }

func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // the generator builds plain maps
	}
	return string(b)
}
