package apitest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kubewire/kubewire/apiclient"
)

// kube-apiserver decodes a built-in object into its Go type, which its
// OpenAPI schema describes: a field the type lacks does not survive (a
// warning "unknown field", or under fieldValidation=Strict a refusal), a
// quantity is kept in its canonical form ("0.5" is "500m", "1024Mi" "1Gi"),
// and a time in its own: a date-time (meta/v1 Time) in UTC to the second, a
// micro-time (MicroTime: a Lease's renewTime, an Event's eventTime) in UTC
// with exactly six fractional digits, which it must also be sent with.
// decoded does the same from the recorded schemas (catalog.go).

// how a write came, for decoded's refusals.
const (
	decodeBody  = iota // a POST's or PUT's body: Strict is 400
	decodePatch        // a patch's result: Strict is 422 on the patch
	decodeApply        // an apply's configuration: 500 in every mode
	// decodeApplied is an apply's result: refused as decodeApply, but a null
	// the merge left (a map whose last owned member it removed) is kept, for
	// validation to refuse as kube-apiserver does (422): it drops nulls only
	// from what it is sent.
	decodeApplied
)

// decoded returns o as the built-in kind t names keeps it, its dropped
// fields told as warnings (t.warn) or refused as t.validation and how say.
// A custom resource, or a kind with no recorded schema, is returned as is.
func decoded(t target, o object, how int) (object, error) {
	if t.crd != nil {
		return crdDecoded(t, o, how)
	}
	c := recorded()
	r, ok := c.resource(t.group, t.version, t.resource)
	if !ok {
		return o, nil
	}
	root := c.schemas[c.kinds[t.group+"/"+t.version+"/"+r.kind]]
	if root == nil {
		return o, nil
	}
	var unknown []string
	if err := c.walk(root, map[string]any(o), "", &unknown); err != nil {
		if te, ok := err.(valueError); ok {
			return nil, te.answer(t, o, r.kind, how)
		}
		return nil, err
	}
	return refuseUnknown(t, o, r.kind, unknown, how)
}

// refuseUnknown answers the unknown fields decoding o (of kind) dropped, as
// fieldValidation and how say: warnings, nothing, or a refusal.
func refuseUnknown(t target, o object, kind string, unknown []string, how int) (object, error) {
	if len(unknown) == 0 {
		return o, nil
	}
	r := struct{ kind string }{kind}
	quoted := make([]string, len(unknown))
	for i, u := range unknown {
		quoted[i] = fmt.Sprintf("unknown field %q", u)
	}
	switch {
	case how == decodeApply || how == decodeApplied:
		name, _ := o.meta()["name"].(string)
		return nil, statusError{code: http.StatusInternalServerError, error: fmt.Errorf("failed to create typed patch object (/%s; %s, Kind=%s): .%s: field not declared in schema", name, t.apiVersion(), r.kind, unknown[0])}
	case t.validation == "Strict" && how == decodePatch:
		msg := "Invalid value: the patched object: strict decoding error: " + strings.Join(quoted, ", ")
		return nil, statusError{code: http.StatusUnprocessableEntity, reason: "Invalid", error: fmt.Errorf(`%q is invalid: patch: %s`, "", msg),
			details: &apiclient.StatusDetails{Causes: []apiclient.StatusCause{{Type: "FieldValueInvalid", Message: msg, Field: "patch"}}}}
	case t.validation == "Strict":
		return nil, fail(http.StatusBadRequest, "%s in version %q cannot be handled as a %s: strict decoding error: %s", r.kind, t.version, r.kind, strings.Join(quoted, ", "))
	case t.validation != "Ignore" && t.warn != nil:
		*t.warn = append(*t.warn, quoted...)
	}
	return o, nil
}

// walk checks v against schema s at path: it deletes the members s does not
// declare (noting their paths in unknown) and canonicalises quantities.
func (c *catalog) walk(s any, v any, path string, unknown *[]string) error {
	m := c.resolve(s)
	if m == nil || m["x-kubernetes-preserve-unknown-fields"] == true || m["x-kubernetes-int-or-string"] == true {
		return nil
	}
	switch v := v.(type) {
	case map[string]any:
		props, _ := m["properties"].(map[string]any)
		extra, hasExtra := m["additionalProperties"].(map[string]any)
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			switch p, ok := props[k]; {
			case ok:
				if q, isQ := c.scalar(p, v[k], false); isQ {
					if q.err != nil {
						return q.err
					}
					v[k] = q.value
					continue
				}
				if err := c.walk(p, v[k], join(path, k), unknown); err != nil {
					return err
				}
			case hasExtra:
				if q, isQ := c.scalar(extra, v[k], true); isQ {
					if q.err != nil {
						return q.err
					}
					v[k] = q.value
					continue
				}
				if err := c.walk(extra, v[k], join(path, k), unknown); err != nil {
					return err
				}
			case props != nil:
				*unknown = append(*unknown, join(path, k))
				delete(v, k)
			}
		}
	case []any:
		items, _ := m["items"].(map[string]any)
		for i, it := range v {
			if err := c.walk(items, it, path+"["+strconv.Itoa(i)+"]", unknown); err != nil {
				return err
			}
		}
	}
	return nil
}

// resolve follows a schema's reference ($ref, or allOf of one) to its
// definition.
func (c *catalog) resolve(s any) map[string]any {
	m, _ := s.(map[string]any)
	for range 8 {
		if ref, ok := m["$ref"].(string); ok {
			m, _ = c.schemas[strings.TrimPrefix(ref, "#/components/schemas/")].(map[string]any)
			continue
		}
		if all, ok := m["allOf"].([]any); ok && len(all) == 1 {
			m, _ = all[0].(map[string]any)
			continue
		}
		return m
	}
	return m
}

type canonical struct {
	value any
	err   error
}

const quantityRef = "io.k8s.apimachinery.pkg.api.resource.Quantity"

// quantity canonicalises v when schema s is a Quantity; inList: it is a
// value of a map of them (a ResourceList), rounded up to a thousandth.
func (c *catalog) quantity(s any, v any, inList bool) (canonical, bool) {
	m, _ := s.(map[string]any)
	if all, ok := m["allOf"].([]any); ok && len(all) == 1 {
		m, _ = all[0].(map[string]any)
	}
	if ref, _ := m["$ref"].(string); !strings.HasSuffix(ref, "/"+quantityRef) {
		return canonical{}, false
	}
	var text string
	switch v := v.(type) {
	case string:
		text = v
	case json.Number:
		text = v.String()
	default:
		return canonical{value: v}, true
	}
	q, err := canonicalQuantity(text, inList)
	if err != nil {
		return canonical{err: fail(http.StatusBadRequest, "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")}, true
	}
	return canonical{value: q}, true
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

// Times, as meta/v1's Time and MicroTime parse and write them.
const (
	timeLayout  = time.RFC3339
	microLayout = "2006-01-02T15:04:05.000000Z07:00"
)

// valueError is a date-time, micro-time or base64 value that does not parse:
// how the server answers it depends on how the object came (valueError.answer).
type valueError struct{ err error }

func (e valueError) Error() string { return e.err.Error() }

// answer is kube-apiserver's refusal of o, a kind whose value does not parse,
// come as how says: a body is 400, a patch's result 422 (its cause the
// patch), an apply's 500.
func (e valueError) answer(t target, o object, kind string, how int) error {
	switch how {
	case decodePatch:
		b, _ := json.Marshal(o)
		msg := fmt.Sprintf("Invalid value: %q: %v", b, e.err)
		return statusError{code: http.StatusUnprocessableEntity, reason: "Invalid", error: fmt.Errorf(`%q is invalid: patch: %s`, "", msg),
			details: &apiclient.StatusDetails{Causes: []apiclient.StatusCause{{Type: "FieldValueInvalid", Message: msg, Field: "patch"}}}}
	case decodeApply, decodeApplied:
		name, _ := o.meta()["name"].(string)
		return statusError{code: http.StatusInternalServerError, error: fmt.Errorf("failed to convert new object (/%s; %s, Kind=%s) to proper version: unable to convert unstructured object to %s, Kind=%s: %v", name, t.apiVersion(), kind, t.apiVersion(), kind, e.err)}
	}
	return fail(http.StatusBadRequest, "%s in version %q cannot be handled as a %s: %v", kind, t.version, kind, e.err)
}

// time normalises v when schema s is a date-time (format date-time; a
// micro-time when it is the MicroTime type). Only a string is checked: null
// is no time.
func (c *catalog) time(s any, v any) (canonical, bool) {
	m, _ := s.(map[string]any)
	if all, ok := m["allOf"].([]any); ok && len(all) == 1 {
		m, _ = all[0].(map[string]any)
	}
	ref, _ := m["$ref"].(string)
	if d := c.resolve(m); d == nil || d["format"] != "date-time" {
		return canonical{}, false
	}
	text, ok := v.(string)
	if !ok {
		return canonical{value: v}, true
	}
	layout := timeLayout
	if strings.HasSuffix(ref, ".MicroTime") {
		layout = microLayout
	}
	at, err := time.Parse(layout, text)
	if err != nil {
		return canonical{err: valueError{err}}, true
	}
	return canonical{value: at.UTC().Format(layout)}, true
}

// scalar checks and normalises v when schema s is a quantity, a time or
// bytes (format byte: base64, written again in its standard form).
func (c *catalog) scalar(s any, v any, inList bool) (canonical, bool) {
	if q, ok := c.time(s, v); ok {
		return q, ok
	}
	if q, ok := c.quantity(s, v, inList); ok {
		return q, ok
	}
	text, isString := v.(string)
	if d := c.resolve(s); !isString || d == nil || d["format"] != "byte" {
		return canonical{}, false
	}
	b, err := base64.StdEncoding.DecodeString(text)
	if err != nil {
		return canonical{err: valueError{err}}, true
	}
	return canonical{value: base64.StdEncoding.EncodeToString(b)}, true
}
