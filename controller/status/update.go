package status

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/kubewire/kubewire/apiclient"
)

// Update writes desired as obj's status (its status subresource), unless obj
// has that status already: desired is the status alone — a struct of the
// caller's, a map, JSON bytes — and obj the object as the cache has it, whose
// "status" member is compared with it. When desired declares an
// observedGeneration (a JSON key "observedGeneration" at its top, or a struct
// field of that JSON name, omitempty or not), it is set to obj's generation
// first: the status then says which spec it describes.
//
// It reports whether it wrote. Neither obj nor desired is changed. A NotFound
// means the object went; the caller usually ignores it (the next event is its
// deletion).
func Update(ctx context.Context, c *apiclient.Client, obj apiclient.TypedObject, desired any) (written bool, err error) {
	meta := obj.GetObjectMeta()
	want, err := toValue(desired)
	if err != nil {
		return false, fmt.Errorf("status of %s: desired: %w", meta.Name, err)
	}
	if m, ok := want.(map[string]any); ok && declaresObservedGeneration(desired, m) {
		m["observedGeneration"] = json.Number(fmt.Sprint(meta.Generation))
	}
	have, err := currentStatus(obj)
	if err != nil {
		return false, fmt.Errorf("status of %s: current: %w", meta.Name, err)
	}
	if equal(have, want) {
		return false, nil
	}
	patch, err := json.Marshal(map[string]any{"status": want})
	if err != nil {
		return false, fmt.Errorf("status of %s: %w", meta.Name, err)
	}
	_, err = c.Resource(obj.Resource()).Namespace(meta.Namespace).Patch(ctx, meta.Name, apiclient.MergePatch, patch, apiclient.WriteOptions{}, "status")
	return err == nil, err
}

// currentStatus is the "status" member of obj's JSON, as a value (nil if none).
func currentStatus(obj any) (any, error) {
	whole, err := toValue(obj)
	if err != nil {
		return nil, err
	}
	m, _ := whole.(map[string]any)
	return m["status"], nil
}

// declaresObservedGeneration: the desired status has the key, or its Go type
// declares it (an omitempty field at 0 leaves the key out of the JSON).
func declaresObservedGeneration(desired any, encoded map[string]any) bool {
	if _, has := encoded["observedGeneration"]; has {
		return true
	}
	t := reflect.TypeOf(desired)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return false
	}
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name == "observedGeneration" {
			return true
		}
	}
	return false
}

// toValue turns v into the JSON value it encodes to, numbers kept as text.
func toValue(v any) (any, error) {
	data, err := apiclient.JSONOf(v)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	return out, nil
}

// equal compares two JSON values; numbers are equal when their values are
// (1, 1.0, 1e0; sameNumber). A missing status equals an empty one.
func equal(a, b any) bool {
	switch x := a.(type) {
	case nil:
		m, isMap := b.(map[string]any)
		return b == nil || isMap && len(m) == 0
	case json.Number:
		y, ok := b.(json.Number)
		return ok && sameNumber(x, y)
	case map[string]any:
		y, ok := b.(map[string]any)
		if b == nil {
			return len(x) == 0
		}
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !equal(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

// sameNumber compares two JSON numbers by value: exactly as int64 when both are
// integers, else as float64 (two decimals that differ only past float64's
// precision compare equal, and their write is skipped; a status does not hold
// such numbers).
func sameNumber(a, b json.Number) bool {
	if a == b {
		return true
	}
	if x, err := a.Int64(); err == nil {
		if y, err := b.Int64(); err == nil {
			return x == y
		}
	}
	x, err1 := a.Float64()
	y, err2 := b.Float64()
	return err1 == nil && err2 == nil && x == y
}
