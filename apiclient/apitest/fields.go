package apitest

import (
	"encoding/json"
	"fmt"
	"reflect"
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

// toFieldSet is the set of fields v sets, as structured-merge-diff counts
// them: every scalar, every atomic list or map, every list item, every map
// key; but a declared struct field only through its members (unless it is
// empty or null).
func toFieldSet(v any, s *schema) *fieldSet {
	f := &fieldSet{}
	collect(plain(v), s, f)
	return f.tidy()
}

// collect adds what v sets under node n, and reports whether v is a leaf (then
// the caller adds n itself).
func collect(v any, s *schema, n *fieldSet) (leaf bool) {
	switch v := v.(type) {
	case map[string]any:
		if s != nil && s.atomic {
			return true
		}
		for k, cv := range v {
			c := n.child("f:" + k)
			if collect(cv, s.child(k), c) || cv == nil || isEmptyMap(cv) || !s.declared(k) {
				c.member = true
			}
		}
		return false
	case []any:
		if s == nil || s.list == "" {
			return true
		}
		count := map[string]int{}
		for _, item := range v {
			count[itemElem(s, item)]++
		}
		for _, item := range v {
			e := itemElem(s, item)
			c := n.child(e)
			if s.list == "map" && count[e] == 1 {
				collect(item, s.elem, c) // repeated items are one leaf
			}
			c.member = true
		}
		return false
	}
	return true
}

// itemElem is the path element of a list item: "k:" and its keys for a map
// list, "v:" and the value for a set.
func itemElem(s *schema, item any) string {
	if s.list == "set" {
		return "v:" + string(marshal(item))
	}
	key := map[string]any{}
	m, _ := item.(map[string]any)
	for _, k := range s.keys {
		if v, ok := m[k]; ok {
			key[k] = v
		}
	}
	return "k:" + string(marshal(key))
}

// plain turns an object into the map[string]any it is, for type switches.
func plain(v any) any {
	if o, ok := v.(object); ok {
		return map[string]any(o)
	}
	return v
}

func isEmptyMap(v any) bool {
	m, ok := v.(map[string]any)
	return ok && len(m) == 0
}

// comparison is what changed from one version of an object to the next.
type comparison struct{ added, modified, removed *fieldSet }

// compareFields compares old and new, as structured-merge-diff's Compare: a
// leaf (a scalar, an atomic list or map, an empty one) that only new has is
// added, one that only old has is removed, one both have with different values
// is modified; a map or list item that only one side has is added or removed
// too, with its members.
func compareFields(old, new any, s *schema) comparison {
	c := comparison{&fieldSet{}, &fieldSet{}, &fieldSet{}}
	walkCompare(plain(old), plain(new), true, true, s, c, nil)
	c.added.tidy()
	c.modified.tidy()
	c.removed.tidy()
	return c
}

// walkCompare compares one place; path is the elements that lead to it.
func walkCompare(l, r any, hasL, hasR bool, s *schema, c comparison, path []string) {
	mark := func(set *fieldSet) {
		n := set
		for _, e := range path {
			n = n.child(e)
		}
		n.member = true
	}
	lm, lIsMap := l.(map[string]any)
	rm, rIsMap := r.(map[string]any)
	ll, lIsList := l.([]any)
	rl, rIsList := r.([]any)
	// A null is an empty map or list to the other side: its members are
	// added or removed, not the place itself.
	if hasL && l == nil {
		lIsMap, lIsList = rIsMap, rIsList
	}
	if hasR && r == nil {
		rIsMap, rIsList = lIsMap, lIsList
	}
	switch {
	case (lIsMap || !hasL) && (rIsMap || !hasR) && !(s != nil && s.atomic) && !(len(lm) == 0 && len(rm) == 0):
		zip(lm, rm, func(k string, lv, rv any, lok, rok bool) {
			walkCompare(lv, rv, lok, rok, s.child(k), c, append(path, "f:"+k))
		})
	case (lIsList || !hasL) && (rIsList || !hasR) && s != nil && s.list != "" && !(len(ll) == 0 && len(rl) == 0):
		elem := s.elem
		if s.list == "set" {
			elem = nil
		}
		zip(byElem(s, ll), byElem(s, rl), func(k string, lv, rv any, lok, rok bool) {
			_, ldup := lv.(dups)
			_, rdup := rv.(dups)
			if ldup || rdup {
				// Repeated items are one leaf: compared whole.
				if ldup {
					lv = []any(lv.(dups))
				}
				if rdup {
					rv = []any(rv.(dups))
				}
				walkCompare(lv, rv, lok, rok, nil, c, append(path, k))
				return
			}
			walkCompare(lv, rv, lok, rok, elem, c, append(path, k))
		})
	default: // a leaf
		switch {
		case !hasL:
			mark(c.added)
		case !hasR:
			mark(c.removed)
		case !reflect.DeepEqual(l, r):
			mark(c.modified)
		}
		return
	}
	// A map, a list or a list item only one side has is added or removed
	// itself; a struct only through its members, and so is a field the Go
	// type always has (kube-apiserver compares typed objects, where such a
	// field is there, null, before it is set).
	if len(path) == 0 || (s.isStruct() && !strings.HasPrefix(path[len(path)-1], "k:")) || (s != nil && s.required) {
		return
	}
	switch {
	case !hasL:
		mark(c.added)
	case !hasR:
		mark(c.removed)
	}
}

// zip calls each for every key of l or r, with both values.
func zip(l, r map[string]any, each func(k string, lv, rv any, lok, rok bool)) {
	keys := map[string]bool{}
	for k := range l {
		keys[k] = true
	}
	for k := range r {
		keys[k] = true
	}
	for k := range keys {
		lv, lok := l[k]
		rv, rok := r[k]
		each(k, lv, rv, lok, rok)
	}
}

// byElem is a list's items by their path elements.
// Items of one path element repeated in a list (a finalizer twice) are owned
// as one leaf: byElem gives them as dups, which walkCompare compares whole.
func byElem(s *schema, l []any) map[string]any {
	m := make(map[string]any, len(l))
	for _, it := range l {
		k := itemElem(s, it)
		switch prev := m[k].(type) {
		case nil:
			if _, seen := m[k]; !seen {
				m[k] = it
				continue
			}
			m[k] = dups{prev, it}
		case dups:
			m[k] = append(prev, it)
		default:
			m[k] = dups{prev, it}
		}
	}
	return m
}

// dups is the items of one path element when a list repeats it.
type dups []any

// removeFields removes from v every member and item whose path is in set.
// A map or list the removal leaves empty goes too, unless owned names it:
// then it stays, as null (what structured-merge-diff leaves of it). It
// returns the new value, and false when v itself is to go.
func removeFields(v any, set, owned *fieldSet, s *schema) (any, bool) {
	if set == nil {
		return v, true
	}
	if set.member {
		return nil, false
	}
	if len(set.children) == 0 {
		return v, true
	}
	emptied := func() (any, bool) {
		if owned != nil && owned.member {
			return nil, true
		}
		return nil, false
	}
	sub := func(elem string) *fieldSet {
		if owned == nil {
			return nil
		}
		return owned.children[elem]
	}
	switch v := v.(type) {
	case map[string]any:
		if s != nil && s.atomic {
			return v, true
		}
		out := map[string]any{}
		for k, cv := range v {
			if nv, keep := removeFields(cv, set.children["f:"+k], sub("f:"+k), s.child(k)); keep {
				out[k] = nv
			}
		}
		if len(out) == 0 && len(v) > 0 {
			return emptied()
		}
		return out, true
	case []any:
		if s == nil || s.list == "" {
			return v, true
		}
		var out []any
		for _, item := range v {
			e := itemElem(s, item)
			if nv, keep := removeFields(item, set.children[e], sub(e), s.elem); keep {
				out = append(out, nv)
			}
		}
		if len(out) == 0 && len(v) > 0 {
			return emptied()
		}
		return out, true
	}
	return v, true
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
