package apitest

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// The order of a list a strategic merge patch merged, and the small helpers of
// smp.go.

// orderItems puts the patch's items in the patch's order and the server's own
// in the original order, then interleaves them: a server item goes before a
// patch item when the original had it first (strategicpatch's
// normalizeElementOrder and mergeSortedSlice).
func orderItems(inPatch, serverOnly, patchOrder, serverOrder []any, key string) []any {
	byOrder := func(l, order []any) []any {
		var keep, deleted []any
		for _, it := range l {
			if m, ok := it.(map[string]any); ok && m["$patch"] == "delete" {
				deleted = append(deleted, it)
			} else {
				keep = append(keep, it)
			}
		}
		sort.SliceStable(keep, func(i, j int) bool {
			ii, ij := indexOf(order, keep[i], key), indexOf(order, keep[j], key)
			if ii >= 0 && ij >= 0 {
				return ii < ij
			}
			return true
		})
		return append(keep, deleted...)
	}
	left, right := byOrder(serverOnly, serverOrder), byOrder(inPatch, patchOrder)
	out := make([]any, 0, len(left)+len(right))
	i, j := 0, 0
	for i < len(left) || j < len(right) {
		switch {
		case j >= len(right):
			out = append(out, left[i])
			i++
		case i >= len(left):
			out = append(out, right[j])
			j++
		default:
			li, ri := indexOf(serverOrder, left[i], key), indexOf(serverOrder, right[j], key)
			if li >= 0 && ri >= 0 && li < ri {
				out = append(out, left[i])
				i++
			} else {
				out = append(out, right[j])
				j++
			}
		}
	}
	return out
}

// partition splits merged into the items the patch names and the others.
func partition(merged, patch []any, key string) (inPatch, serverOnly []any) {
	for _, it := range merged {
		if indexOf(patch, it, key) >= 0 {
			inPatch = append(inPatch, it)
		} else {
			serverOnly = append(serverOnly, it)
		}
	}
	return inPatch, serverOnly
}

// indexOf is the position in l of the item with v's merge key (of v itself,
// for scalars), or -1.
func indexOf(l []any, v any, key string) int {
	val := func(it any) any {
		if key == "" {
			return it
		}
		m, _ := it.(map[string]any)
		return m[key]
	}
	want := val(v)
	for i, it := range l {
		if reflect.DeepEqual(val(it), want) {
			return i
		}
	}
	return -1
}

// appendNew appends the values of add not yet in l.
func appendNew(l, add []any) []any {
	for _, v := range add {
		if indexOf(l, v, "") < 0 {
			l = append(l, v)
		}
	}
	return l
}

func removeScalars(l, remove []any) []any {
	var out []any
	for _, v := range l {
		if indexOf(remove, v, "") < 0 {
			out = append(out, v)
		}
	}
	if out == nil {
		out = []any{}
	}
	return out
}

// withoutDirectives is v without the members whose names start with $, the
// maps that hold a "$patch" directive, and null members (which delete
// nothing where nothing was).
func withoutDirectives(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, c := range v {
			if cm, ok := c.(map[string]any); (ok && cm["$patch"] != nil) || c == nil {
				continue
			}
			if !strings.HasPrefix(k, "$") {
				out[k] = withoutDirectives(c)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, c := range v {
			out[i] = withoutDirectives(c)
		}
		return out
	}
	return v
}

func deepCopyValue(v any) any {
	var out any
	if err := decodeJSON(marshal(v), &out); err != nil {
		panic(fmt.Sprintf("apitest: copy: %v", err))
	}
	return out
}
