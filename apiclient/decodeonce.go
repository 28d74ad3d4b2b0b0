package apiclient

import "reflect"

// decodedValue is one decoding of an Object into a value of type typ.
type decodedValue struct {
	typ reflect.Type
	v   any
}

// DecodeOnce decodes o into a new T, as Decode does, the first time it is asked
// for a T of this object, and returns that same *T every time after: an object
// in an informer's cache is decoded once per resourceVersion (every change is a
// new Object), however often a Reconciler reads it. The value is shared like the
// object it came from: treat it as read-only, and copy it before changing it.
//
// It keeps one decoding per object: asking for another type replaces it, and
// asking again for the first decodes again. Safe for concurrent use; two callers
// racing on the first decode may both decode, and one value wins.
//
// The cost is 8 bytes on every Object, for the pointer, and the decoded value
// for as long as the object lives.
func DecodeOnce[T any](o *Object) (*T, error) {
	typ := reflect.TypeFor[T]()
	if d := o.decoded.Load(); d != nil && d.typ == typ {
		return d.v.(*T), nil
	}
	v := new(T)
	if err := o.Decode(v); err != nil {
		return nil, err
	}
	o.decoded.Store(&decodedValue{typ: typ, v: v})
	return v, nil
}
