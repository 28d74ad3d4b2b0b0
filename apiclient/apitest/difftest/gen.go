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

func pick[T any](g *gen, from []T) T { return from[g.rnd.IntN(len(from))] }

func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // the generator builds plain maps
	}
	return string(b)
}
