package apitest

import (
	"reflect"
)

// How the sets of fields.go are made from objects: the fields an object sets
// (toFieldSet, what an apply configuration owns), what changed between two
// versions (compareFields, what an update takes over), and the removal of
// fields from an object (removeFields, an apply's pruning).

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
	walkCompare(plain(old), plain(new), true, true, true, true, s, c, nil)
	c.added.tidy()
	c.modified.tidy()
	c.removed.tidy()
	return c
}

// walkCompare compares one place; path is the elements that lead to it.
// thereL and thereR: the typed object of that side has the place even where
// the JSON lacks it (schema.always, all the way from the root).
func walkCompare(l, r any, hasL, hasR, thereL, thereR bool, s *schema, c comparison, path []string) {
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
			a := s != nil && s.always[k]
			walkCompare(lv, rv, lok, rok, a && (hasL || thereL), a && (hasR || thereR), s.child(k), c, append(path, "f:"+k))
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
				walkCompare(lv, rv, lok, rok, false, false, nil, c, append(path, k))
				return
			}
			walkCompare(lv, rv, lok, rok, false, false, elem, c, append(path, k))
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
	// A map, a struct, a list or a list item only one side has is added or
	// removed itself — but not where the typed object of the other side has
	// it anyway (kube-apiserver compares typed objects: a struct that is no
	// pointer is there, empty, and a list without omitempty null, before
	// anything is set in them).
	switch {
	case len(path) == 0:
	case !hasL && !thereL:
		mark(c.added)
	case !hasR && !thereR:
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
