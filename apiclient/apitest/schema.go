package apitest

import "slices"

// What the server must know of an object's schema to track field ownership
// (managedFields, server-side apply) and to merge strategically: which members
// of an object are declared fields of a struct and which are keys of a map,
// and how each list is merged — as one value (atomic), as a set of scalars, or
// as a map of items keyed by some of their fields (containers by name).
//
// kube-apiserver reads this from the OpenAPI schemas of the built-in types and
// from each CRD's schema. apitest carries a small table of the built-in types
// its users write (ObjectMeta, ConfigMap, Deployment, Pod and its template) and
// reads a CRD's schema when the CRD is stored in it; anything else is read the
// way kube-apiserver reads x-kubernetes-preserve-unknown-fields: members are
// map keys, lists are atomic.

// schema is one place in an object's schema. The zero value is a place apitest
// knows nothing of (preserve-unknown-fields).
type schema struct {
	fields map[string]*schema // a struct's declared fields; nil: a map, or unknown
	elem   *schema            // a map's values, a list's items; nil: unknown
	list   string             // "" atomic, "set", "map"
	keys   []string           // a "map" list's keys, for server-side apply
	smpKey string             // the patchMergeKey of a list strategic merge patches merge
	atomic bool               // a struct or map set and owned as one value
	closed bool               // a built-in struct: its unknown members are struct fields too
	// always are the members a typed object has whenever it has s: a
	// struct that is no pointer in the Go type (its place's default is {}
	// in the record), a list or map without omitempty (required). One is
	// never added or removed itself, only its members — unless s is not
	// there either (inside a new list item, everything is new).
	always map[string]bool
	// typ is a CRD schema's type ("object", "string", …), nullable whether
	// it allows null: kube-apiserver refuses a null where neither is so.
	typ      string
	nullable bool
}

// child is the schema of member name of s.
func (s *schema) child(name string) *schema {
	if s == nil {
		return nil
	}
	if f, ok := s.fields[name]; ok {
		return f
	}
	if s.closed {
		return closedStruct
	}
	return s.elem
}

// declared reports whether member name of s is a declared struct field (which
// managedFields names only through its members) rather than a map key.
func (s *schema) declared(name string) bool {
	if s == nil {
		return false
	}
	_, ok := s.fields[name]
	return ok || s.closed
}

// isStruct reports whether s is a struct (its members are fields) rather than
// a map (its members are keys).
func (s *schema) isStruct() bool { return s != nil && (s.fields != nil || s.closed) }

// item is the schema of s's list items.
func (s *schema) item() *schema {
	if s == nil {
		return nil
	}
	return s.elem
}

// closedStruct is a member of a built-in struct the record does not declare:
// a struct whose members are all fields.
var closedStruct = &schema{closed: true}

// metaSchema is ObjectMeta's, from the record: every object's metadata.
func metaSchema() *schema {
	return recorded().definition("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")
}

// builtinSchema is the schema of the built-in kind t's resource holds, from
// the record (recschema.go).
func builtinSchema(t target) *schema {
	c := recorded()
	if r, ok := c.resource(t.group, t.version, t.resource); ok {
		if s := c.kindSchema(t.group, t.version, r.kind); s != nil {
			return s
		}
	}
	return &schema{closed: true, fields: map[string]*schema{"metadata": metaSchema()}}
}

// customRoot is the schema of a custom resource whose CRD apitest has not
// stored: every member below the top is a map key, every list atomic.
func customRoot() *schema {
	return &schema{fields: map[string]*schema{"apiVersion": {}, "kind": {}, "metadata": metaSchema(), "spec": {}, "status": {}}}
}

// crdSchema turns a CRD version's openAPIV3Schema into a schema.
func crdSchema(v map[string]any) *schema {
	s := &schema{}
	s.typ, _ = v["type"].(string)
	s.nullable, _ = v["nullable"].(bool)
	if b, _ := v["x-kubernetes-preserve-unknown-fields"].(bool); b {
		return s
	}
	switch v["type"] {
	case "object":
		if props, ok := v["properties"].(map[string]any); ok {
			s.fields = map[string]*schema{}
			for name, p := range props {
				pm, _ := p.(map[string]any)
				s.fields[name] = crdSchema(pm)
			}
		}
		if v["x-kubernetes-embedded-resource"] == true {
			// An embedded resource's apiVersion, kind and ObjectMeta, which
			// (a custom resource being unstructured: nothing is always
			// there) is added and removed itself.
			if s.fields == nil {
				s.fields = map[string]*schema{}
			}
			s.fields["apiVersion"], s.fields["kind"] = &schema{}, &schema{}
			s.fields["metadata"] = metaSchema()
		}
		if ap, ok := v["additionalProperties"].(map[string]any); ok {
			s.elem = crdSchema(ap)
		}
		s.atomic = v["x-kubernetes-map-type"] == "atomic"
	case "array":
		items, _ := v["items"].(map[string]any)
		s.elem = crdSchema(items)
		s.listType(v)
	}
	return s
}

// listType sets s's list type and map keys from an OpenAPI array schema's
// x-kubernetes-list-type and x-kubernetes-list-map-keys; false when it names
// none (an atomic list, unless a patch strategy says otherwise: recschema.go).
func (s *schema) listType(v map[string]any) bool {
	switch v["x-kubernetes-list-type"] {
	case "set":
		s.list = "set"
	case "map":
		s.list = "map"
		for _, k := range asList(v["x-kubernetes-list-map-keys"]) {
			if ks, ok := k.(string); ok {
				s.keys = append(s.keys, ks)
			}
		}
	default:
		return false
	}
	return true
}

// nullField is the path of the first null in o that s does not allow, or "".
func nullField(v any, s *schema, path string) string {
	m, ok := v.(map[string]any)
	if !ok || s == nil {
		return ""
	}
	for k, cv := range m {
		cs, declared := s.fields[k]
		if !declared {
			continue
		}
		p := k
		if path != "" {
			p = path + "." + k
		}
		if cv == nil && cs.typ != "" && !cs.nullable {
			return p + ":" + cs.typ
		}
		if f := nullField(cv, cs, p); f != "" {
			return f
		}
	}
	return ""
}

// withMeta completes a custom resource's root schema with what every object has.
func withMeta(s *schema) *schema {
	if s.fields == nil {
		s.fields = map[string]*schema{}
	}
	s.fields["metadata"] = metaSchema()
	for _, k := range []string{"apiVersion", "kind"} {
		if _, ok := s.fields[k]; !ok {
			s.fields[k] = &schema{}
		}
	}
	return s
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// isKey reports whether name is one of the list item keys of s.
func (s *schema) isKey(name string) bool { return s != nil && slices.Contains(s.keys, name) }
