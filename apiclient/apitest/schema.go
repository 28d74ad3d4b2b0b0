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
	// required: the Go type has no omitempty for the field, so a typed
	// object always has it (null if unset): it is never added or removed
	// itself, only its members.
	required bool
	// typ is a CRD schema's type ("object", "string", …), nullable whether
	// it allows null: kube-apiserver refuses a null where neither is so.
	typ      string
	nullable bool
	// itself: an object of a CRD's schema, which (a custom resource being
	// unstructured) is added and removed itself, as a map is, though its
	// members are declared fields.
	itself bool
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

// closedStruct is a member of a built-in type that apitest has no entry for: a
// struct whose members are all fields.
var closedStruct = &schema{closed: true}

func stringMap() *schema { return &schema{elem: &schema{}} }

var objectMeta = &schema{closed: true, fields: map[string]*schema{
	"labels":          stringMap(),
	"annotations":     stringMap(),
	"finalizers":      {list: "set", smpKey: "$set"},
	"ownerReferences": {list: "map", keys: []string{"uid"}, smpKey: "uid", elem: closedStruct},
	"managedFields":   {},
}}

var condition = &schema{closed: true}

var container = &schema{closed: true, fields: map[string]*schema{
	"env":          {list: "map", keys: []string{"name"}, smpKey: "name", elem: closedStruct},
	"ports":        {list: "map", keys: []string{"containerPort", "protocol"}, smpKey: "containerPort", elem: closedStruct},
	"volumeMounts": {list: "map", keys: []string{"mountPath"}, smpKey: "mountPath", elem: closedStruct},
	"args":         {},
	"command":      {},
}}

var podSpec = &schema{closed: true, fields: map[string]*schema{
	"containers":       {list: "map", keys: []string{"name"}, smpKey: "name", elem: container, required: true},
	"initContainers":   {list: "map", keys: []string{"name"}, smpKey: "name", elem: container},
	"volumes":          {list: "map", keys: []string{"name"}, smpKey: "name", elem: closedStruct},
	"imagePullSecrets": {list: "map", keys: []string{"name"}, smpKey: "name", elem: closedStruct},
	"nodeSelector":     stringMap(),
	"tolerations":      {},
}}

var podTemplate = &schema{closed: true, fields: map[string]*schema{"metadata": objectMeta, "spec": podSpec}}

func conditions() *schema {
	return &schema{list: "map", keys: []string{"type"}, smpKey: "type", elem: condition}
}

// builtin is the schema of each built-in resource apitest knows, by collection.
var builtin = map[string]*schema{
	"configmaps": {closed: true, fields: map[string]*schema{"metadata": objectMeta, "data": stringMap(), "binaryData": stringMap()}},
	"secrets":    {closed: true, fields: map[string]*schema{"metadata": objectMeta, "data": stringMap(), "stringData": stringMap()}},
	"pods": {closed: true, fields: map[string]*schema{"metadata": objectMeta, "spec": podSpec,
		"status": {closed: true, fields: map[string]*schema{"conditions": conditions(), "containerStatuses": {}, "podIPs": {list: "map", keys: []string{"ip"}, smpKey: "ip", elem: closedStruct}}}}},
	"deployments.apps": {closed: true, fields: map[string]*schema{"metadata": objectMeta,
		"spec": {closed: true, fields: map[string]*schema{
			"selector": {closed: true, atomic: true},
			"template": podTemplate,
		}},
		"status": {closed: true, fields: map[string]*schema{"conditions": conditions()}}}},
}

// customRoot is the schema of a custom resource whose CRD apitest has not
// stored: every member below the top is a map key, every list atomic.
var customRoot = &schema{fields: map[string]*schema{
	"apiVersion": {}, "kind": {}, "metadata": objectMeta, "spec": {}, "status": {},
}}

// otherRoot is the schema of a built-in resource not in the table.
var otherRoot = &schema{closed: true, fields: map[string]*schema{"metadata": objectMeta}}

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
		s.itself = true
		if props, ok := v["properties"].(map[string]any); ok {
			s.fields = map[string]*schema{}
			for name, p := range props {
				pm, _ := p.(map[string]any)
				s.fields[name] = crdSchema(pm)
			}
		}
		if v["x-kubernetes-embedded-resource"] == true {
			// An embedded resource's apiVersion, kind and ObjectMeta,
			// which (unlike the top's) is added and removed itself.
			if s.fields == nil {
				s.fields = map[string]*schema{}
			}
			s.fields["apiVersion"], s.fields["kind"] = &schema{}, &schema{}
			s.fields["metadata"] = &schema{closed: true, fields: objectMeta.fields, itself: true}
		}
		if ap, ok := v["additionalProperties"].(map[string]any); ok {
			s.elem = crdSchema(ap)
		}
		s.atomic = v["x-kubernetes-map-type"] == "atomic"
	case "array":
		items, _ := v["items"].(map[string]any)
		s.elem = crdSchema(items)
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
		}
	}
	return s
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
	s.fields["metadata"] = objectMeta
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
