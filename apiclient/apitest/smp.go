package apitest

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// A strategic merge patch is a JSON merge patch that knows, from the schema,
// which lists to merge rather than replace: lists of objects by a merge key
// (containers by name), lists of scalars as sets (finalizers). It has
// directives: "$patch": "delete" on a list item deletes the item of its key,
// "$patch": "replace" replaces the map or list it is in, "$patch": "delete" on
// a map empties it; "$deleteFromPrimitiveList/F": [values] takes values out of
// the scalar list F; "$setElementOrder/F" orders the list F; "$retainKeys"
// keeps only the named members. This is k8s.io/apimachinery's strategicpatch,
// written again for apitest's schemas; merged lists are ordered the way it
// orders them.

// smpError is a patch that cannot be applied: 400? The real server answers a
// malformed strategic merge patch with a 4xx or 500 depending on where it
// fails; apitest answers 400.
type smpError struct{ error }

// strategicMerge applies patch to original (which it changes) and returns the
// result.
func strategicMerge(original, patch map[string]any, s *schema) (map[string]any, error) {
	if d, ok := patch["$patch"]; ok {
		switch d {
		case "replace":
			delete(patch, "$patch")
			return patch, nil
		case "delete":
			return map[string]any{}, nil
		}
		return nil, smpError{fmt.Errorf("unknown patch type %v", d)}
	}
	if original == nil {
		original = map[string]any{}
	}
	if rk, ok := patch["$retainKeys"]; ok {
		delete(patch, "$retainKeys")
		keep := map[string]bool{}
		for _, k := range asList(rk) {
			if ks, ok := k.(string); ok {
				keep[ks] = true
			}
		}
		for k := range original {
			if !keep[k] {
				delete(original, k)
			}
		}
	}
	if err := setElementOrders(original, patch, s); err != nil {
		return nil, err
	}
	// Deletions from scalar lists first, then the rest in key order.
	keys := make([]string, 0, len(patch))
	for k := range patch {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		di, dj := strings.HasPrefix(keys[i], "$deleteFromPrimitiveList/"), strings.HasPrefix(keys[j], "$deleteFromPrimitiveList/")
		if di != dj {
			return di
		}
		return keys[i] < keys[j]
	})
	for _, k := range keys {
		pv := patch[k]
		deleteList := false
		if rest, ok := strings.CutPrefix(k, "$deleteFromPrimitiveList/"); ok {
			k, deleteList = rest, true
		}
		if pv == nil {
			delete(original, k)
			continue
		}
		ov, ok := original[k]
		if !ok && deleteList {
			continue // nothing to delete from
		}
		if !ok {
			// Not in the original: the patch value, less its directives —
			// and nothing at all if it is a map with a "$patch" directive,
			// which kube-apiserver drops there whole.
			if pm, isMap := pv.(map[string]any); isMap && pm["$patch"] != nil {
				continue
			}
			original[k] = withoutDirectives(pv)
			continue
		}
		if reflect.TypeOf(ov) != reflect.TypeOf(pv) {
			original[k] = withoutDirectives(pv)
			continue
		}
		var err error
		switch ov := ov.(type) {
		case map[string]any:
			original[k], err = strategicMerge(ov, pv.(map[string]any), s.child(k))
		case []any:
			original[k], err = mergeList(ov, pv.([]any), s.child(k), deleteList)
		default:
			original[k] = pv
		}
		if err != nil {
			return nil, err
		}
	}
	return original, nil
}

// mergeList merges patch into the list original: as a set or by merge key
// where the schema says so, else it replaces it.
func mergeList(original, patch []any, s *schema, deleteList bool) ([]any, error) {
	if s == nil || s.smpKey == "" {
		return withoutDirectives(patch).([]any), nil
	}
	if len(original) == 0 && len(patch) == 0 {
		return original, nil
	}
	var merged []any
	key := s.smpKey
	if key == "$set" { // a list of scalars
		if deleteList {
			return removeScalars(original, patch), nil
		}
		// Merged, and each value once: the repeats an original list had go
		// too, as in kube-apiserver's strategic merge.
		merged = appendNew(nil, append(append([]any{}, original...), patch...))
		key = ""
	} else {
		var err error
		if original, patch, err = specialItems(original, patch, key); err != nil {
			return nil, err
		}
		merged = append([]any{}, original...)
		for _, p := range patch {
			pm := p.(map[string]any)
			if i := indexOf(merged, pm, key); i >= 0 {
				m, err := strategicMerge(deepCopyValue(merged[i]).(map[string]any), pm, s.elem)
				if err != nil {
					return nil, err
				}
				merged[i] = m
			} else {
				merged = append(merged, withoutDirectives(pm))
			}
		}
	}
	inPatch, serverOnly := partition(merged, patch, key)
	return orderItems(inPatch, serverOnly, patch, original, key), nil
}

// specialItems carries out the list items that are directives: "$patch":
// "delete" removes the original items of its key, "$patch": "replace" makes
// the patch's other items the whole list.
func specialItems(original, patch []any, key string) ([]any, []any, error) {
	var plain []any
	replace := false
	for _, p := range patch {
		pm, ok := p.(map[string]any)
		if !ok {
			return nil, nil, smpError{fmt.Errorf("a list merged by %s holds a %T", key, p)}
		}
		d, ok := pm["$patch"]
		if !ok {
			if _, hasKey := pm[key]; !hasKey {
				return nil, nil, smpError{fmt.Errorf("map: %v does not contain declared merge key: %s", pm, key)}
			}
			plain = append(plain, p)
			continue
		}
		switch d {
		case "delete":
			kv, ok := pm[key]
			if !ok {
				return nil, nil, smpError{fmt.Errorf("map: %v does not contain declared merge key: %s", pm, key)}
			}
			var kept []any
			for _, o := range original {
				if om, _ := o.(map[string]any); om == nil || om[key] != kv {
					kept = append(kept, o)
				}
			}
			original = kept
		case "replace":
			replace = true
		default:
			return nil, nil, smpError{fmt.Errorf("unknown patch type %v", d)}
		}
	}
	if replace {
		return plain, nil, nil
	}
	return original, plain, nil
}

// setElementOrders carries out the "$setElementOrder/F" directives: the list
// F, merged with the patch's F if there is one, ordered as the directive
// lists it.
func setElementOrders(original, patch map[string]any, s *schema) error {
	for k, order := range patch {
		field, ok := strings.CutPrefix(k, "$setElementOrder/")
		if !ok {
			continue
		}
		delete(patch, k)
		orderList := asList(order)
		ol, hasOriginal := original[field].([]any)
		pl, hasPatch := patch[field].([]any)
		var merged []any
		switch {
		case hasOriginal && !hasPatch:
			merged = ol
		case !hasOriginal && hasPatch:
			merged = pl
		case hasOriginal && hasPatch:
			var err error
			if merged, err = mergeList(ol, pl, s.child(field), false); err != nil {
				return err
			}
		default:
			continue
		}
		key := ""
		if cs := s.child(field); cs != nil && cs.smpKey != "$set" {
			key = cs.smpKey
		}
		inOrder, serverOnly := partition(merged, orderList, key)
		original[field] = orderItems(inOrder, serverOnly, orderList, ol, key)
		delete(patch, field)
	}
	return nil
}
