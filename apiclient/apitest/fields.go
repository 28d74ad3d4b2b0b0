package apitest

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// fieldSet is a set of field paths, as a tree shaped like the objects it
// describes and like the fieldsV1 of a managedFields entry: each node is one
// path element — "f:name" a member, "k:{…}" a keyed list item, "v:…" a set
// item — and member says whether the path that ends there is in the set
// (fieldsV1 writes it "." when the node has children too). This is
// structured-merge-diff's fieldpath.Set, as much of it as apitest needs.
type fieldSet struct {
	member   bool
	children map[string]*fieldSet
}

func (f *fieldSet) child(elem string) *fieldSet {
	if f.children == nil {
		f.children = map[string]*fieldSet{}
	}
	c := f.children[elem]
	if c == nil {
		c = &fieldSet{}
		f.children[elem] = c
	}
	return c
}

// empty reports whether no path is in the set.
func (f *fieldSet) empty() bool {
	if f == nil {
		return true
	}
	if f.member {
		return false
	}
	for _, c := range f.children {
		if !c.empty() {
			return false
		}
	}
	return true
}

// tidy drops the children that hold no path, so that empty reads fast and
// fieldsV1 has no empty branches.
func (f *fieldSet) tidy() *fieldSet {
	for k, c := range f.children {
		if c.tidy().empty() {
			delete(f.children, k)
		}
	}
	return f
}

// combine builds a set node by node from a and b: keep decides membership,
// descend whether to look below a node at all.
func combine(a, b *fieldSet, keep func(a, b bool) bool, descend func(a, b *fieldSet) bool) *fieldSet {
	out := &fieldSet{member: keep(a != nil && a.member, b != nil && b.member)}
	if !descend(a, b) {
		return out
	}
	names := map[string]bool{}
	for _, s := range []*fieldSet{a, b} {
		if s != nil {
			for k := range s.children {
				names[k] = true
			}
		}
	}
	for k := range names {
		var ac, bc *fieldSet
		if a != nil {
			ac = a.children[k]
		}
		if b != nil {
			bc = b.children[k]
		}
		if c := combine(ac, bc, keep, descend); !c.empty() {
			if out.children == nil {
				out.children = map[string]*fieldSet{}
			}
			out.children[k] = c
		}
	}
	return out
}

func always(a, b *fieldSet) bool { return true }

func (f *fieldSet) union(g *fieldSet) *fieldSet {
	return combine(f, g, func(a, b bool) bool { return a || b }, always)
}

func (f *fieldSet) intersect(g *fieldSet) *fieldSet {
	return combine(f, g, func(a, b bool) bool { return a && b }, func(a, b *fieldSet) bool { return a != nil && b != nil })
}

func (f *fieldSet) minus(g *fieldSet) *fieldSet {
	return combine(f, g, func(a, b bool) bool { return a && !b }, func(a, b *fieldSet) bool { return a != nil })
}

// minusTree removes every path of g and everything below it
// (structured-merge-diff's RecursiveDifference).
func (f *fieldSet) minusTree(g *fieldSet) *fieldSet {
	return combine(f, g, func(a, b bool) bool { return a && !b }, func(a, b *fieldSet) bool { return a != nil && (b == nil || !b.member) })
}

// paths lists the set's paths as structured-merge-diff prints them in a
// conflict: .spec.containers[name="c1"].image, .metadata.finalizers[="x"].
func (f *fieldSet) paths() []string {
	var out []string
	var walk func(n *fieldSet, prefix string)
	walk = func(n *fieldSet, prefix string) {
		if n.member {
			out = append(out, prefix)
		}
		for k, c := range n.children {
			walk(c, prefix+pathString(k))
		}
	}
	walk(f, "")
	sort.Strings(out)
	return out
}

func pathString(elem string) string {
	switch elem[:2] {
	case "f:":
		return "." + elem[2:]
	case "v:":
		return "[=" + elem[2:] + "]"
	case "k:":
		var key map[string]json.RawMessage
		json.Unmarshal([]byte(elem[2:]), &key)
		var parts []string
		for name, v := range key {
			parts = append(parts, name+"="+string(v))
		}
		sort.Strings(parts)
		return "[" + strings.Join(parts, ",") + "]"
	}
	return "[" + elem[2:] + "]"
}

// encode writes the set as fieldsV1.
func (f *fieldSet) encode() map[string]any {
	out := map[string]any{}
	if f.member && len(f.children) > 0 {
		out["."] = map[string]any{}
	}
	for k, c := range f.children {
		out[k] = c.encode()
	}
	return out
}

// decodeFields reads fieldsV1.
func decodeFields(v map[string]any) *fieldSet {
	f := &fieldSet{}
	for k, c := range v {
		cm, _ := c.(map[string]any)
		if k == "." {
			f.member = true
			continue
		}
		child := decodeFields(cm)
		if len(cm) == 0 {
			child.member = true
		}
		if f.children == nil {
			f.children = map[string]*fieldSet{}
		}
		f.children[k] = child
	}
	return f
}

// fieldsPath is the set holding the one path elems, for the ignored fields.
func fieldsPath(elems ...string) *fieldSet {
	f := &fieldSet{}
	n := f
	for _, e := range elems {
		n = n.child(e)
	}
	n.member = true
	return f
}

func (c comparison) String() string {
	return fmt.Sprintf("added %v modified %v removed %v", c.added.paths(), c.modified.paths(), c.removed.paths())
}
