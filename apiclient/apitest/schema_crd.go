package apitest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/kubewire/kubewire/apiclient"
)

// kube-apiserver decodes a custom resource by its CRD's structural schema
// (the version's openAPIV3Schema), in this order:
//
//  1. Pruning: a field no schema declares is dropped, with the warning
//     `unknown field "PATH"` (or refused under fieldValidation=Strict, as a
//     built-in's: decode.go), unless its object keeps unknown fields
//     (x-kubernetes-preserve-unknown-fields). metadata is an ObjectMeta at
//     the top and in an embedded resource (x-kubernetes-embedded-resource,
//     whose apiVersion and kind are kept too). A null where the schema does
//     not allow one (nullable) is dropped — from what is sent: one an
//     apply's merge leaves (a map whose last owned member it removed) is
//     kept, and validation refuses it (decodeApplied).
//  2. Defaulting: a field missing (or dropped null) whose schema has a
//     default gets it, a copy, and the defaults below it in turn.
//  3. Validation, once the strategy has kept what the write may change
//     (validateCustom): each value of the type its schema says (422 with a
//     FieldValueTypeInvalid cause per value, at its path), an embedded
//     resource's apiVersion and kind required, the scale subresource's
//     replica paths integers.
//
// An apply's configuration is typed before all this: a field not declared or
// a value of the wrong type is a 500, as kube-apiserver fails to build the
// typed patch.

const objectMetaSchema = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"

// crdDecoded is decoded for a custom resource whose CRD t.crd holds.
func crdDecoded(t target, o object, how int) (object, error) {
	root := crdRoot(t.crd)
	if root == nil {
		return o, nil
	}
	var unknown []string
	if err := pruneCustom(root, map[string]any(o), "", &unknown, true, how != decodeApplied); err != nil {
		return nil, err
	}
	if how == decodeApply || how == decodeApplied {
		var causes []apiclient.StatusCause
		typeCheck(root, map[string]any(o), "", &causes)
		if len(unknown) == 0 && len(causes) > 0 {
			name, _ := o.meta()["name"].(string)
			return nil, statusError{code: http.StatusInternalServerError, error: fmt.Errorf("failed to create typed patch object (/%s; %s, Kind=%s): .%s: %s", name, t.apiVersion(), o["kind"], causes[0].Field, causes[0].Message)}
		}
	}
	kind, _ := o["kind"].(string)
	o, err := refuseUnknown(t, o, kind, unknown, how)
	if err == nil {
		applyDefaults(root, map[string]any(o))
	}
	return o, err
}

// crdRoot is the openAPIV3Schema of a CRD's version vm.
func crdRoot(vm map[string]any) map[string]any {
	s, _ := vm["schema"].(map[string]any)
	root, _ := s["openAPIV3Schema"].(map[string]any)
	return root
}

// pruneCustom drops from v what schema s does not declare, noting the paths
// in unknown, and, with dropNulls, the nulls s does not allow; embedded: v is
// a resource (the top, or an embedded one).
func pruneCustom(s map[string]any, v any, path string, unknown *[]string, embedded, dropNulls bool) error {
	switch v := v.(type) {
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		extra, _ := s["additionalProperties"].(map[string]any)
		keep := s["x-kubernetes-preserve-unknown-fields"] == true || s["additionalProperties"] == true
		for _, k := range sortedNames(v) {
			p, declared := props[k].(map[string]any)
			switch {
			case embedded && (k == "apiVersion" || k == "kind"):
			case embedded && k == "metadata":
				// An ObjectMeta, whatever the schema says of it.
				c := recorded()
				if err := c.walk(c.schemas[objectMetaSchema], v[k], join(path, k), unknown); err != nil {
					return err
				}
			case declared && v[k] == nil && p["nullable"] != true:
				if dropNulls {
					delete(v, k)
				}
			case declared:
				if err := pruneCustom(p, v[k], join(path, k), unknown, p["x-kubernetes-embedded-resource"] == true, dropNulls); err != nil {
					return err
				}
			case extra != nil:
				if err := pruneCustom(extra, v[k], join(path, k), unknown, false, dropNulls); err != nil {
					return err
				}
			case !keep:
				*unknown = append(*unknown, join(path, k))
				delete(v, k)
			}
		}
	case []any:
		items, _ := s["items"].(map[string]any)
		for i, it := range v {
			if err := pruneCustom(items, it, path+"["+strconv.Itoa(i)+"]", unknown, items["x-kubernetes-embedded-resource"] == true, dropNulls); err != nil {
				return err
			}
		}
	}
	return nil
}

// applyDefaults gives v's missing fields their schema's defaults.
func applyDefaults(s map[string]any, v any) {
	switch v := v.(type) {
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		for _, k := range sortedNames(props) {
			p, _ := props[k].(map[string]any)
			if d, ok := p["default"]; ok && v[k] == nil {
				v[k] = deepCopyValue(d)
			}
			if v[k] != nil {
				applyDefaults(p, v[k])
			}
		}
		if extra, ok := s["additionalProperties"].(map[string]any); ok {
			for k, cv := range v {
				if _, declared := props[k]; !declared {
					applyDefaults(extra, cv)
				}
			}
		}
	case []any:
		items, _ := s["items"].(map[string]any)
		for _, it := range v {
			applyDefaults(items, it)
		}
	}
}

// validateCustom is kube-apiserver's validation of custom resource o by its
// CRD's schema (vm): types, embedded resources, the scale subresource's
// replica paths. nil when o passes.
func validateCustom(t target, st strategy, kind string, o object) error {
	vm := st.crd
	root := crdRoot(vm)
	if root == nil {
		return nil
	}
	var causes []apiclient.StatusCause
	typeCheck(root, map[string]any(o), "", &causes)
	sub, _ := vm["subresources"].(map[string]any)
	scale, _ := sub["scale"].(map[string]any)
	for _, k := range []string{"specReplicasPath", "statusReplicasPath"} {
		path, _ := scale[k].(string)
		if path == "" {
			continue
		}
		v, ok := at(o, path)
		if n, isNumber := v.(json.Number); ok && v != nil && (!isNumber || !isInteger(n)) {
			causes = append(causes, apiclient.StatusCause{Type: "FieldValueInvalid", Field: path,
				Message: fmt.Sprintf("Invalid value: 0: %s accessor error: %v is of the type %s, expected int64", path, v, goType(v))})
		}
	}
	for _, c := range validateMetaOf(o, "metadata", false) {
		causes = append(causes, c)
		if st.updating && c.Field != "metadata.finalizers" {
			// kube-apiserver (1.37 and 1.32) tells each fault of an
			// update's labels and annotations three times.
			causes = append(causes, c, c)
		}
	}
	causes = append(causes, validateNames("", o.meta())...)
	if len(causes) == 0 {
		return nil
	}
	name, _ := o.meta()["name"].(string)
	return invalidAll(kind+"."+t.group, name, causes, t.group, kind)
}

// typeCheck notes, in causes, each value of v that is not of the type its
// schema s says, and each embedded resource without apiVersion or kind.
func typeCheck(s map[string]any, v any, path string, causes *[]apiclient.StatusCause) {
	if s == nil || v == nil {
		return // a null: nullField's (schema.go)
	}
	want, _ := s["type"].(string)
	if s["x-kubernetes-int-or-string"] == true {
		want = "integer,string"
	}
	got := jsonType(v)
	if want != "" && !strings.Contains(want, got) && !(want == "number" && got == "integer") {
		*causes = append(*causes, apiclient.StatusCause{Type: "FieldValueTypeInvalid", Field: path,
			Message: fmt.Sprintf("Invalid value: %q: %s in body must be of type %s: %q", got, path, want, got)})
		if want == "integer" && got == "number" {
			*causes = append(*causes, apiclient.StatusCause{Type: "FieldValueInvalid", Field: "<nil>",
				Message: fmt.Sprintf("Invalid value: \"\": Checked value must be of type integer (default format) in %s", path)})
		}
		return
	}
	switch v := v.(type) {
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		extra, _ := s["additionalProperties"].(map[string]any)
		if s["x-kubernetes-embedded-resource"] == true {
			for _, k := range []string{"apiVersion", "kind"} {
				if x, _ := v[k].(string); x == "" {
					*causes = append(*causes, apiclient.StatusCause{Type: "FieldValueRequired", Field: join(path, k), Message: "Required value"})
				}
			}
			*causes = append(*causes, validateMetaOf(v, join(path, "metadata"), true)...)
		}
		for _, k := range sortedNames(v) {
			if p, ok := props[k].(map[string]any); ok {
				typeCheck(p, v[k], join(path, k), causes)
			} else if extra != nil {
				typeCheck(extra, v[k], join(path, k), causes)
			}
		}
	case []any:
		items, _ := s["items"].(map[string]any)
		for i, it := range v {
			typeCheck(items, it, path+"["+strconv.Itoa(i)+"]", causes)
		}
	}
}

// jsonType is the schema type of a decoded JSON value.
func jsonType(v any) string {
	switch v := v.(type) {
	case string:
		return "string"
	case bool:
		return "boolean"
	case json.Number:
		if isInteger(v) {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "null"
}

func isInteger(n json.Number) bool {
	_, err := strconv.ParseInt(string(n), 10, 64)
	return err == nil
}

// goType is how kube-apiserver's unstructured accessors name a value's type.
func goType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case bool:
		return "bool"
	case json.Number:
		return "float64"
	case []any:
		return "[]interface {}"
	}
	return "map[string]interface {}"
}

// at is the value at a JSON path of the scale subresource's (".spec.replicas").
func at(o object, path string) (any, bool) {
	var v any = map[string]any(o)
	for _, k := range strings.Split(strings.TrimPrefix(path, "."), ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

// invalidAll is a 422 Invalid with causes (at least one), its details
// naming group and kind.
func invalidAll(qualified, name string, causes []apiclient.StatusCause, group, kind string) statusError {
	msgs := make([]string, len(causes))
	for i, c := range causes {
		msgs[i] = c.Field + ": " + c.Message
	}
	msg := msgs[0]
	if len(msgs) > 1 {
		msg = "[" + strings.Join(msgs, ", ") + "]"
	}
	return statusError{code: http.StatusUnprocessableEntity, reason: "Invalid",
		error:   fmt.Errorf("%s %q is invalid: %s", qualified, name, msg),
		details: &apiclient.StatusDetails{Name: name, Group: group, Kind: kind, Causes: causes}}
}

func sortedNames[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// warnFinalizers warns of each finalizer o, a custom resource (st), adds to
// old (nil for a create) that is neither standard nor qualified by a domain,
// as kube-apiserver warns.
func warnFinalizers(t target, st strategy, old, o object) {
	if !st.custom || t.warn == nil {
		return
	}
	for _, f := range finalizersOf(o) {
		if s, _ := f.(string); !standardFinalizer(s) && (old == nil || !slicesContain(finalizersOf(old), s)) {
			*t.warn = append(*t.warn, fmt.Sprintf("metadata.finalizers: %q: prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers", s))
		}
	}
}
