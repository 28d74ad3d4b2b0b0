package perturb

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"sort"
	"strings"
	"time"
)

// The oracle: what an execution with a perturbation must do that the
// reference did. Every invariant holds at every version (checkInvariants);
// the controller becomes idle within the bounds (execution.settle); and the
// end state — every object of every collection a request touched, Events and
// Leases aside, as the garbage collector would leave them — equals the
// reference's once what differs between any two runs is taken out
// (endState): uids, resourceVersions, timestamps, generations,
// managedFields, generated names, and the fields Spec.Ignore names.

// checkInvariants checks every invariant at every version written since the
// last check, on the server's objects as they stood there (x.state, kept up
// to date change by change). by is the process whose write the changes are
// (0: the workload's): the driver lets one write through at a time, and
// takes in what it did before the next. false: one does not hold (the
// execution's problem says which, and where).
func (x *execution) checkInvariants(by int) bool {
	last := x.hist.last()
	if last == x.checkedAt {
		return true
	}
	for _, c := range x.hist.since(x.checkedAt) {
		before := x.state
		c.by, c.madeBy = by, by
		if old, ok := before[c.coll][c.key()]; ok && c.typ != "ADDED" {
			c.madeBy = old.madeBy
		}
		x.state = x.state.with(c)
		if len(x.spec.Invariants) == 0 || isNote(c.coll) {
			continue
		}
		s := &State{Version: x.hist.ordinal(c.rv), Process: x.cur.n, By: by, Step: x.steps, objs: x.state, before: before}
		for _, inv := range x.spec.Invariants {
			if err := inv.Holds(s); err != nil {
				x.fail("invariant %q does not hold at v%d (%s %s %s): %v", inv.Name, s.Version, c.coll, c.typ, c.key(), err)
				return false
			}
		}
	}
	x.checkedAt = last
	return true
}

// checkIdle checks the Eventually properties on the idle state, and notes
// where it stood for the comparison with the reference's (Explore): the
// version, or -1 when the perturbation still holds something back — the
// controller has not been shown what it would act on, and nothing is
// checked. false: a property does not hold.
func (x *execution) checkIdle() bool {
	if x.holding() {
		x.out.idle = append(x.out.idle, -1)
		return true
	}
	x.out.idle = append(x.out.idle, x.checkedAt)
	s := &State{Version: x.hist.ordinal(x.checkedAt), Process: x.cur.n, Step: x.steps, objs: x.state}
	for _, p := range x.spec.Eventually {
		if err := p.Holds(s); err != nil {
			x.fail("idle %s (v%d), %q does not hold: %v", afterStep(x.steps), s.Version, p.Name, err)
			return false
		}
	}
	return true
}

// afterStep names an idle point: "after the start", "after step 2".
func afterStep(n int) string {
	if n == 0 {
		return "after the start"
	}
	return fmt.Sprintf("after step %d", n)
}

// objects are the server's objects, by collection, then by key. A value is
// never changed: with makes a new one, sharing what the change leaves alone.
type objects map[string]map[string]change

// with returns o after c.
func (o objects) with(c change) objects {
	next := make(objects, len(o)+1)
	for k, v := range o {
		next[k] = v
	}
	coll := make(map[string]change, len(o[c.coll])+1)
	for k, v := range o[c.coll] {
		coll[k] = v
	}
	if c.typ == "DELETED" {
		delete(coll, c.key())
	} else {
		coll[c.key()] = c
	}
	next[c.coll] = coll
	return next
}

// object is one object of an end state: its fields, "path = value", sorted.
type object map[string]string

// endState is the end state of a history: "collection namespace/name" →
// object. Objects named from one generateName are siblings that only their
// content tells apart: they are compared as a multiset (siblings).
func endState(hist []change, ignore []string) map[string]object {
	names := identities(hist)
	final := map[string]change{}
	for _, c := range hist {
		if isNote(c.coll) {
			continue
		}
		k := c.coll + " " + objectKey(c.ns, c.name)
		if c.typ == "DELETED" {
			delete(final, k)
		} else {
			final[k] = c
		}
	}
	collect(final)
	names = siblings(final, names, ignore)
	out := map[string]object{}
	for _, c := range final {
		out[c.coll+" "+objectKey(c.ns, names.rename(c.name))] = flat(c, ignore, names)
	}
	return out
}

// flat is c's object as an end state compares it: its fields, what Ignore
// names left out, made-up names and times replaced.
func flat(c change, ignore []string, n names) object {
	o := object{}
	flatten(c.obj, "", func(path, value string) {
		if !ignored(c.coll, path, ignore) {
			o[path] = value
		}
	}, n)
	return o
}

// siblings renames the objects of final that have a generated name by their
// rank, by content, among the objects of the same collection, namespace and
// generateName: "web-#1" is the one whose fields come first. Which of two
// identical Pods a controller deleted, and in which order it made them, is
// nobody's business; a controller that deletes its surplus by name (the
// natural code) keeps whichever names the server happened to make. Their uids
// are renamed to match, so that an ownerReference or a status that names one
// still reads the same. The content is read with every generated name blind
// ("web-#"), so that it does not depend on the ranks being given.
func siblings(final map[string]change, n names, ignore []string) names {
	blind := maps.Clone(n)
	groups := map[string][]change{}
	for _, c := range final {
		if gen := generated(c); gen != "" {
			blind[c.name] = gen + "#"
			k := c.coll + " " + objectKey(c.ns, gen)
			groups[k] = append(groups[k], c)
		}
	}
	if len(groups) == 0 {
		return n
	}
	for _, c := range final {
		if gen := generated(c); gen != "" {
			if uid, _ := metadata(c.obj)["uid"].(string); uid != "" {
				blind[uid] = c.coll + " " + objectKey(c.ns, gen+"#")
			}
		}
	}
	out := maps.Clone(n)
	for _, group := range groups {
		content := make(map[string]string, len(group))
		for _, c := range group {
			content[c.name] = fmt.Sprint(sortedFields(flat(c, ignore, blind)))
		}
		sort.Slice(group, func(i, j int) bool {
			a, b := content[group[i].name], content[group[j].name]
			return a < b || a == b && group[i].rv < group[j].rv
		})
		for i, c := range group {
			name := fmt.Sprintf("%s#%d", generated(c), i+1)
			out[c.name] = name
			if uid, _ := metadata(c.obj)["uid"].(string); uid != "" {
				out[uid] = c.coll + " " + objectKey(c.ns, name) + "#1"
			}
		}
	}
	return out
}

// generated is the generateName c's name was made from, "" when it was not.
func generated(c change) string {
	gen, _ := metadata(c.obj)["generateName"].(string)
	if gen == "" || !strings.HasPrefix(c.name, gen) {
		return ""
	}
	return gen
}

func sortedFields(o object) []string {
	out := make([]string, 0, len(o))
	for _, p := range sortedKeys(o) {
		out = append(out, p+"="+o[p])
	}
	return out
}

// collect deletes what the garbage collector would: every object whose
// owners (ownerReferences) are all gone, and then what they owned. The server
// here has no garbage collector, and without one a child outlives its owner
// in whatever state the run happened to leave it — a difference no cluster
// would show.
func collect(objs map[string]change) {
	for {
		uids := map[string]bool{}
		for _, c := range objs {
			if uid, _ := metadata(c.obj)["uid"].(string); uid != "" {
				uids[uid] = true
			}
		}
		gone := 0
		for k, c := range objs {
			refs, _ := metadata(c.obj)["ownerReferences"].([]any)
			orphan := len(refs) > 0
			for _, r := range refs {
				ref, _ := r.(map[string]any)
				if uid, _ := ref["uid"].(string); uids[uid] {
					orphan = false
				}
			}
			if orphan {
				delete(objs, k)
				gone++
			}
		}
		if gone == 0 {
			return
		}
	}
}

// always is what differs between any two runs of the same controller, left
// out of every comparison. A generation (and the observedGeneration that
// echoes it) counts the writes that got an object where it is, not where it
// is: a perturbed run may take more writes, or fewer, to the same place. A
// flap on the way (scaled down, then up again) is for an invariant to catch.
var always = []string{".metadata.uid", ".metadata.resourceVersion", ".metadata.creationTimestamp",
	".metadata.deletionTimestamp", ".metadata.managedFields", ".metadata.selfLink", ".metadata.generation"}

func ignored(coll, path string, ignore []string) bool {
	under := func(p string) bool {
		return path == p || strings.HasPrefix(path, p+".") || strings.HasPrefix(path, p+"[")
	}
	if strings.HasSuffix(path, ".observedGeneration") {
		return true
	}
	for _, p := range always {
		if under(p) {
			return true
		}
	}
	for _, rule := range ignore {
		c, p, _ := strings.Cut(rule, ":")
		if (c == "*" || c == coll) && under(p) {
			return true
		}
	}
	return false
}

var plainKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// flatten calls leaf for every leaf of v with its path (.spec.replicas,
// .metadata.annotations["example.com/at"], .spec.containers[0].image) and
// its value as JSON, made-up names and times replaced.
func flatten(v any, path string, leaf func(path, value string), n names) {
	switch v := v.(type) {
	case map[string]any:
		if len(v) == 0 {
			leaf(path, "{}")
		}
		for k, e := range v {
			p := path + "." + k
			if !plainKey.MatchString(k) {
				p = fmt.Sprintf("%s[%q]", path, k)
			}
			flatten(e, p, leaf, n)
		}
	case []any:
		if len(v) == 0 {
			leaf(path, "[]")
		}
		for i, e := range v {
			flatten(e, fmt.Sprintf("%s[%d]", path, i), leaf, n)
		}
	case string:
		if _, err := time.Parse(time.RFC3339Nano, v); err == nil {
			leaf(path, "<time>")
			return
		}
		b, _ := json.Marshal(n.rename(v))
		leaf(path, string(b))
	default:
		b, _ := json.Marshal(v)
		leaf(path, string(b))
	}
}

// diff says how got differs from want, one line per object or field, at most
// max lines.
func diff(want, got map[string]object, max int) []string {
	keys := map[string]bool{}
	for k := range want {
		keys[k] = true
	}
	for k := range got {
		keys[k] = true
	}
	var out []string
	for _, k := range sortedKeys(keys) {
		w, inWant := want[k]
		g, inGot := got[k]
		switch {
		case !inGot:
			out = append(out, k+": missing (the reference ends with it)")
		case !inWant:
			out = append(out, k+": extra (the reference ends without it)")
		default:
			paths := map[string]bool{}
			for p := range w {
				paths[p] = true
			}
			for p := range g {
				paths[p] = true
			}
			for _, p := range sortedKeys(paths) {
				if w[p] != g[p] {
					out = append(out, fmt.Sprintf("%s: %s is %s, the reference's %s", k, p, orAbsent(g, p), orAbsent(w, p)))
				}
			}
		}
	}
	if len(out) > max {
		out = append(out[:max], fmt.Sprintf("… and %d more", len(out)-max))
	}
	return out
}

func orAbsent(o object, p string) string {
	if v, ok := o[p]; ok {
		return v
	}
	return "absent"
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
