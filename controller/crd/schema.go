package crd

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/kubewire/kubewire/apiclient"
)

// SchemaOf is the structural schema of a Go type's JSON, as encoding/json writes
// it, with what its fields' kubewire tags add. It is what a CRD version's
// openAPIV3Schema holds for a TypedObject, where the embedded ObjectMeta is
// {"type":"object"} (the server's to check) and TypeMeta adds nothing (the
// server checks apiVersion and kind). Cost: one walk of the type, its fields
// each once.
func SchemaOf(t reflect.Type) (*Schema, error) {
	w := walker{inside: map[reflect.Type]bool{}}
	return w.object(t, true)
}

// walker keeps the struct types it is inside, to refuse recursion: a
// structural schema has no references, so a type that holds itself would
// be an infinite schema.
type walker struct {
	inside map[reflect.Type]bool
}

// Types the schema knows by name.
var (
	timeType     = reflect.TypeFor[time.Time]()
	apiTimeType  = reflect.TypeFor[apiclient.Time]()
	rawType      = reflect.TypeFor[json.RawMessage]()
	objectMeta   = reflect.TypeFor[apiclient.ObjectMeta]()
	typeMeta     = reflect.TypeFor[apiclient.TypeMeta]()
	marshaler    = reflect.TypeFor[json.Marshaler]()
	textMarshal  = reflect.TypeFor[interface{ MarshalText() ([]byte, error) }]()
	schemaTyper  = reflect.TypeFor[interface{ OpenAPISchemaType() []string }]()
	schemaFormat = reflect.TypeFor[interface{ OpenAPISchemaFormat() string }]()
)

// of is the schema of a value of type t, before its field's tag applies.
func (w walker) of(t reflect.Type) (*Schema, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t.Kind() == reflect.Interface: // any JSON value
		return &Schema{PreserveUnknown: true}, nil
	case t == timeType || t == apiTimeType:
		return &Schema{Type: "string", Format: "date-time"}, nil
	case t == rawType:
		return &Schema{PreserveUnknown: true}, nil
	case implements(t, schemaTyper) || implements(t, schemaFormat):
		return declared(t), nil
	case implements(t, marshaler) || implements(t, textMarshal):
		return nil, fmt.Errorf("%s writes its own JSON: give it OpenAPISchemaType and OpenAPISchemaFormat methods, or tag the field kubewire:\"int-or-string\" or kubewire:\"preserve-unknown-fields\"", t)
	}
	switch t.Kind() {
	case reflect.Bool:
		return &Schema{Type: "boolean"}, nil
	case reflect.String:
		return &Schema{Type: "string"}, nil
	case reflect.Int8, reflect.Int16, reflect.Int32:
		return &Schema{Type: "integer", Format: "int32"}, nil
	case reflect.Int, reflect.Int64:
		return &Schema{Type: "integer", Format: "int64"}, nil
	case reflect.Uint8, reflect.Uint16: // unsigned: Go cannot decode a negative one
		return &Schema{Type: "integer", Format: "int32", Minimum: ptr(0.0)}, nil
	case reflect.Uint, reflect.Uint32, reflect.Uint64:
		return &Schema{Type: "integer", Format: "int64", Minimum: ptr(0.0)}, nil
	case reflect.Float32, reflect.Float64:
		return &Schema{Type: "number"}, nil
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 && t.Kind() == reflect.Slice {
			return &Schema{Type: "string", Format: "byte"}, nil // encoding/json writes base64
		}
		items, err := w.of(t.Elem())
		if err != nil {
			return nil, err
		}
		return &Schema{Type: "array", Items: items}, nil
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, fmt.Errorf("%s: map keys must be strings in a CRD", t)
		}
		v, err := w.of(t.Elem())
		if err != nil {
			return nil, err
		}
		return &Schema{Type: "object", AdditionalProperties: v}, nil
	case reflect.Struct:
		return w.object(t, false)
	}
	return nil, fmt.Errorf("%s: a %s has no JSON form", t, t.Kind())
}

// object is the schema of struct type t; root says t is the resource's own type.
func (w walker) object(t reflect.Type, root bool) (*Schema, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("%s is not a struct", t)
	}
	if w.inside[t] {
		return nil, fmt.Errorf("%s holds itself: a CRD schema cannot recurse; cut the cycle with a json.RawMessage or map[string]any field", t)
	}
	w.inside[t] = true
	defer delete(w.inside, t)

	s := &Schema{Type: "object", Properties: map[string]*Schema{}}
	for _, f := range fields(t) {
		if root && f.in == typeMeta {
			continue
		}
		if root && f.typ == objectMeta {
			s.Properties[f.name] = &Schema{Type: "object"}
			continue
		}
		p, err := w.field(f)
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", t.Name(), f.goName, err)
		}
		s.Properties[f.name] = p
		if f.required(p) && !(root && f.name == "status") {
			s.Required = append(s.Required, f.name)
		}
	}
	if len(s.Properties) == 0 {
		s.Properties = nil
	}
	slices.Sort(s.Required)
	return s, nil
}

// field is the schema of one field: its type's, then its tag's.
func (w walker) field(f field) (*Schema, error) {
	if f.tagErr != nil {
		return nil, fmt.Errorf("kubewire tag: %w", f.tagErr)
	}
	var s *Schema
	switch {
	case f.tag.intOrString:
		s = intOrString()
	case f.tag.preserveUnknown && !isStruct(f.typ):
		s = &Schema{PreserveUnknown: true}
		if k := deref(f.typ).Kind(); k == reflect.Map || k == reflect.Struct {
			s.Type = "object"
		}
	default:
		var err error
		if s, err = w.of(f.typ); err != nil {
			return nil, err
		}
		s.PreserveUnknown = s.PreserveUnknown || f.tag.preserveUnknown
	}
	if err := applyTag(s, f.tag); err != nil {
		return nil, err
	}
	return s, nil
}

// field is one JSON member of a struct, found as encoding/json finds them.
type field struct {
	name, goName string
	typ          reflect.Type
	in           reflect.Type // the struct that declares it
	omitEmpty    bool         // omitempty or omitzero
	tag          tag
	tagErr       error
	depth        int
}

// required reports whether the member must be present: its Go field always
// writes it (no omitempty or omitzero) and never as null — the server drops a
// null it has no nullable for before it validates, so a required pointer,
// slice, map or interface would refuse the value Go writes for nil.
func (f field) required(s *Schema) bool {
	if f.tag.required {
		return true
	}
	if f.omitEmpty || f.tag.optional || s.Nullable {
		return false
	}
	switch f.typ.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		return false
	}
	return true
}

// fields lists t's JSON members in order, embedded structs without a JSON
// name flattened into it; of two members with one name the shallower wins.
func fields(t reflect.Type) []field {
	var out []field
	var walk func(t reflect.Type, depth int)
	walk = func(t reflect.Type, depth int) {
		for i := range t.NumField() {
			sf := t.Field(i)
			jt, hasJSON := sf.Tag.Lookup("json")
			name, opts, _ := strings.Cut(jt, ",")
			if name == "-" && opts == "" {
				continue
			}
			if sf.Anonymous && name == "" && isStruct(sf.Type) {
				walk(deref(sf.Type), depth+1) // inlined, as encoding/json does
				continue
			}
			if !sf.IsExported() {
				continue
			}
			if !hasJSON || name == "" {
				name = sf.Name
			}
			f := field{name: name, goName: sf.Name, typ: sf.Type, in: t, depth: depth,
				omitEmpty: hasOpt(opts, "omitempty") || hasOpt(opts, "omitzero")}
			f.tag, f.tagErr = parseTag(sf.Tag.Get("kubewire"))
			out = append(out, f)
		}
	}
	walk(t, 0)
	// Keep the shallowest of each name, in the order first seen.
	best := map[string]int{}
	for _, f := range out {
		if d, ok := best[f.name]; !ok || f.depth < d {
			best[f.name] = f.depth
		}
	}
	return slices.DeleteFunc(out, func(f field) bool {
		if best[f.name] != f.depth {
			return true
		}
		best[f.name] = -1 // later ones of the same depth go too
		return false
	})
}

func hasOpt(opts, want string) bool {
	for o := range strings.SplitSeq(opts, ",") {
		if o == want {
			return true
		}
	}
	return false
}

// declared is the schema a type states with the methods kube-openapi reads
// (k8s.io's IntOrString and Quantity have them): format "int-or-string" or
// "quantity" is int-or-string.
func declared(t reflect.Type) *Schema {
	v := reflect.New(t).Interface() // a pointer has both method sets
	var s Schema
	if f, ok := v.(interface{ OpenAPISchemaFormat() string }); ok {
		s.Format = f.OpenAPISchemaFormat()
	}
	if s.Format == "int-or-string" || s.Format == "quantity" {
		return intOrString()
	}
	if ty, ok := v.(interface{ OpenAPISchemaType() []string }); ok && len(ty.OpenAPISchemaType()) > 0 {
		s.Type = ty.OpenAPISchemaType()[0]
	}
	if s.Type == "" {
		s.PreserveUnknown = true
	}
	return &s
}

func intOrString() *Schema {
	return &Schema{IntOrString: true, AnyOf: []*Schema{{Type: "integer"}, {Type: "string"}}}
}

func implements(t, iface reflect.Type) bool {
	return t.Implements(iface) || reflect.PointerTo(t).Implements(iface)
}

func isStruct(t reflect.Type) bool { return deref(t).Kind() == reflect.Struct }

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

func ptr[T any](v T) *T { return &v }
