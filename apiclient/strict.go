package apiclient

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/kubewire/kubewire/apiclient/internal/jsonwire"
)

// Unmarshal decodes JSON into v as the API server would read it, where
// encoding/json alone would not:
//
//   - Keys match struct fields case-sensitively. encoding/json puts a key "Replicas"
//     into a field tagged "replicas"; to the API server that key is unknown and is
//     ignored, so here too.
//   - Numbers keep full precision: into an int64 field they are exact (as in
//     encoding/json), and into `any` they become json.Number rather than float64,
//     which silently rounds integers above 2^53.
//
// How: the JSON is read into a generic tree (with json.Number), members that match
// no field exactly are pruned by walking the tree alongside v's type, and the rest
// is handed to encoding/json. Types that decode themselves (json.Unmarshaler, such
// as Time) are left alone. This costs about twice a plain json.Unmarshal, which is
// fine for the typed client; the cache's hot path comes here only for the nested
// members of metadata (ownerReferences, finalizers, managedFields when kept).
//
// Kubernetes' own decoder makes the same two choices (sigs.k8s.io/json, a fork of
// encoding/json).
func Unmarshal(data []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("unmarshal: need a non-nil pointer, got %T", v)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return fmt.Errorf("unmarshal: %w", err)
	}
	if jsonwire.SkipSpace(data, int(dec.InputOffset())) != len(data) {
		return fmt.Errorf("unmarshal: data after the top-level value at byte %d", dec.InputOffset())
	}
	tree = prune(tree, rv.Type().Elem(), 0)
	pruned, err := json.Marshal(tree)
	if err != nil {
		return fmt.Errorf("unmarshal: %w", err)
	}
	d := json.NewDecoder(bytes.NewReader(pruned))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		return fmt.Errorf("unmarshal: %w", err)
	}
	return nil
}

var unmarshalerType = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()

// prune removes, from a generic JSON tree, the object members that no field of t
// is named exactly.
func prune(tree any, t reflect.Type, depth int) any {
	if depth > jsonwire.MaxDepth {
		return tree
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		return tree
	}
	switch node := tree.(type) {
	case map[string]any:
		switch t.Kind() {
		case reflect.Struct:
			fields := jsonFields(t)
			for k, v := range node {
				ft, ok := fields[k]
				if !ok {
					delete(node, k)
					continue
				}
				node[k] = prune(v, ft, depth+1)
			}
		case reflect.Map:
			for k, v := range node {
				node[k] = prune(v, t.Elem(), depth+1)
			}
		}
	case []any:
		if t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
			for i, v := range node {
				node[i] = prune(v, t.Elem(), depth+1)
			}
		}
	}
	return tree
}

// jsonFields maps the JSON names of t's fields, promoted ones included, to their
// types, following encoding/json's rules for tags, "-" and embedding.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	fields := map[string]reflect.Type{}
	var walk func(t reflect.Type, depth int)
	walk = func(t reflect.Type, depth int) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			ft := f.Type
			if f.Anonymous && name == "" {
				for ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if ft.Kind() == reflect.Struct && depth < 16 {
					walk(ft, depth+1)
					continue
				}
			}
			if !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if _, seen := fields[name]; !seen || depth == 0 {
				fields[name] = ft
			}
		}
	}
	walk(t, 0)
	return fields
}
