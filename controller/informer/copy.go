package informer

import "reflect"

// deepCopy returns a copy of *v that shares nothing changeable with it: every
// map, slice, pointer and interface value reachable through exported fields is
// copied too. It is how a Lister hands out a value of its own to each reader
// while decoding each cached object only once (lister.go).
//
// What it copies is what a decoded object can hold: structs, maps, slices,
// arrays, pointers, and the any values of a generic member (map[string]any,
// []any, json.Number, strings). Unexported fields are copied as they are (a
// struct is first copied whole), which is right for the value types a decoder
// fills (time.Time) and never reaches a user's own unexported pointers, which
// the decoder does not set. Channels and functions are not JSON and are shared.
func deepCopy[T any](v *T) *T {
	out := new(T)
	copyValue(reflect.ValueOf(out).Elem(), reflect.ValueOf(v).Elem())
	return out
}

// copyValue sets dst, settable, to a deep copy of src.
func copyValue(dst, src reflect.Value) {
	switch src.Kind() {
	case reflect.Pointer:
		if src.IsNil() {
			return
		}
		p := reflect.New(src.Type().Elem())
		copyValue(p.Elem(), src.Elem())
		dst.Set(p)
	case reflect.Interface:
		if src.IsNil() {
			return
		}
		inner := reflect.New(src.Elem().Type()).Elem()
		copyValue(inner, src.Elem())
		dst.Set(inner)
	case reflect.Map:
		if src.IsNil() {
			return
		}
		m := reflect.MakeMapWithSize(src.Type(), src.Len())
		for it := src.MapRange(); it.Next(); {
			val := reflect.New(src.Type().Elem()).Elem()
			copyValue(val, it.Value())
			m.SetMapIndex(it.Key(), val)
		}
		dst.Set(m)
	case reflect.Slice:
		if src.IsNil() {
			return
		}
		s := reflect.MakeSlice(src.Type(), src.Len(), src.Len())
		for i := range src.Len() {
			copyValue(s.Index(i), src.Index(i))
		}
		dst.Set(s)
	case reflect.Array:
		for i := range src.Len() {
			copyValue(dst.Index(i), src.Index(i))
		}
	case reflect.Struct:
		dst.Set(src) // unexported fields as they are
		for i := range src.NumField() {
			if dst.Field(i).CanSet() {
				copyValue(dst.Field(i), src.Field(i))
			}
		}
	default:
		dst.Set(src)
	}
}
