package apitest

import (
	"strings"
	"sync"
)

// The merge rules of the built-in kinds, read from the recorded OpenAPI v3
// schemas (catalog.go) as kube-apiserver reads them for server-side apply
// (structured-merge-diff's schema, made by kube-openapi's schemaconv) and for
// strategic merge (the Go types' patch tags, which the schemas carry as
// x-kubernetes-patch-strategy and -merge-key):
//
//   - a list is atomic, a set, or a map keyed by its x-kubernetes-list-map-keys,
//     as its x-kubernetes-list-type says; without one, a patch strategy of
//     merge makes it a map keyed by its patch merge key, or a set;
//   - a struct or a map is owned member by member, unless its
//     x-kubernetes-map-type is atomic (a LabelSelector, an OwnerReference:
//     one item, set and owned whole);
//   - a strategic merge patch merges a list by its patch merge key where the
//     patch strategy is merge (a list of scalars as a set), and replaces it
//     otherwise;
//   - int-or-string and preserve-unknown-fields places are unknown: their
//     members are map keys, their lists atomic.

// recordedSchemas holds the schemas made so far, by definition name; each is
// made once per process and then only read.
var recordedSchemas struct {
	sync.Mutex
	byName map[string]*schema
}

// kindSchema is the schema of the built-in kind group/version/Kind, or nil
// when the record has none.
func (c *catalog) kindSchema(group, version, kind string) *schema {
	name, ok := c.kinds[group+"/"+version+"/"+kind]
	if !ok {
		return nil
	}
	return c.definition(name)
}

// definition is the schema of the component schema name.
func (c *catalog) definition(name string) *schema {
	recordedSchemas.Lock()
	defer recordedSchemas.Unlock()
	if recordedSchemas.byName == nil {
		recordedSchemas.byName = map[string]*schema{}
	}
	return c.named(name)
}

// named is definition with the lock held: a definition met again while it is
// being made (a recursive type) is the same schema.
func (c *catalog) named(name string) *schema {
	if s, ok := recordedSchemas.byName[name]; ok {
		return s
	}
	s := &schema{}
	recordedSchemas.byName[name] = s
	def, _ := c.schemas[name].(map[string]any)
	c.fill(s, def)
	return s
}

// place is the schema of one place of a definition: a reference (alone or as
// allOf's one member) is its definition's schema, shared; anything else is
// made here.
func (c *catalog) place(v any) *schema {
	m, _ := v.(map[string]any)
	if all, ok := m["allOf"].([]any); ok && len(all) == 1 {
		m, _ = all[0].(map[string]any)
	}
	if ref, ok := m["$ref"].(string); ok {
		return c.named(strings.TrimPrefix(ref, "#/components/schemas/"))
	}
	s := &schema{}
	c.fill(s, m)
	return s
}

// fill makes s the schema of the OpenAPI schema m.
func (c *catalog) fill(s *schema, m map[string]any) {
	if m["x-kubernetes-preserve-unknown-fields"] == true || m["x-kubernetes-int-or-string"] == true {
		return
	}
	if items, ok := m["items"]; ok {
		s.elem = c.place(items)
		strategy, _ := m["x-kubernetes-patch-strategy"].(string)
		mergeKey, _ := m["x-kubernetes-patch-merge-key"].(string)
		merges := strings.Contains(strategy, "merge")
		if !s.listType(m) && m["x-kubernetes-list-type"] == nil {
			if merges && mergeKey != "" {
				s.list, s.keys = "map", []string{mergeKey}
			} else if merges {
				s.list = "set"
			}
		}
		switch {
		case merges && mergeKey != "":
			s.smpKey = mergeKey
		case merges:
			s.smpKey = "$set"
		}
		return
	}
	s.atomic = m["x-kubernetes-map-type"] == "atomic"
	if props, ok := m["properties"].(map[string]any); ok {
		s.closed = true
		s.fields = make(map[string]*schema, len(props))
		for name, p := range props {
			s.fields[name] = c.place(p)
		}
		s.always = map[string]bool{}
		for name, p := range props {
			// A struct that is no pointer has the default {}.
			if d, ok := p.(map[string]any)["default"].(map[string]any); ok && len(d) == 0 {
				s.always[name] = true
			}
		}
		for _, r := range asList(m["required"]) {
			// Required, where it is a list or a map: no omitempty.
			if name, _ := r.(string); s.fields[name] != nil && (s.fields[name].list != "" || s.fields[name].elem != nil) && !isRef(props[name]) {
				s.always[name] = true
			}
		}
	}
	if ap, ok := m["additionalProperties"]; ok {
		s.elem = c.place(ap)
	}
}

func isRef(v any) bool {
	m, _ := v.(map[string]any)
	_, ref := m["$ref"]
	_, all := m["allOf"]
	return ref || all
}
