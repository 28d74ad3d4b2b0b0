package apiclient

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// DecodeOptions tune how an object's JSON becomes an Object.
// The zero value drops managedFields, as an informer's default transform does.
type DecodeOptions struct {
	// KeepManagedFields keeps metadata.managedFields in Raw and in Metadata.
	KeepManagedFields bool
}

// DecodeObject turns one object's JSON into an Object, dropping managedFields.
// It validates data first; the stream decoders, which have validated already,
// call DecodeOptions.decode directly.
//
// Cost, for the 5.2 KB pod in testdata: one validating pass (jsonvalid.go), one
// pass to find the members, one copy of what is kept, and a hand decode of the
// metadata alone (meta.go); spec and status are not decoded at all.
func DecodeObject(data []byte) (*Object, error) {
	return DecodeOptions{}.Decode(data)
}

// Decode is DecodeObject with options.
func (opts DecodeOptions) Decode(data []byte) (*Object, error) {
	obj, end, err := opts.decodeAt(data, skipSpace(data, 0))
	if err == errShort {
		err = &syntaxError{offset: len(data), msg: "unexpected end of input"}
	}
	if err == nil {
		if j := skipSpace(data, end); j < len(data) {
			err = badByte(data, j, "after the top-level value")
		}
	}
	if err != nil {
		return nil, fmt.Errorf("decode object: %w", err)
	}
	return obj, nil
}

// decodeAt validates and decodes the object that starts at data[start], in one
// pass, and returns where it ends. The stream readers call it on their buffers:
// the result never aliases data.
func (opts DecodeOptions) decodeAt(data []byte, start int) (*Object, int, error) {
	obj := &Object{}
	var meta metaSpan
	end, err := walkObject(data, start, func(key []byte, _, at int) (int, error) {
		switch string(key) {
		case "apiVersion", "kind":
			end, err := checkValue(data, at, 1)
			if err != nil {
				return end, err
			}
			dst := &obj.APIVersion
			if string(key) == "kind" {
				dst = &obj.Kind
			}
			if err := setString(dst, data[at:end], true); err != nil {
				return at, fmt.Errorf("%s: %w", key, err)
			}
			return end, nil
		case "metadata":
			return meta.scan(data, at, !opts.KeepManagedFields)
		}
		return checkValue(data, at, 1)
	})
	if err != nil {
		return nil, end, err
	}
	// Keep a copy of exactly the object, in one allocation of its final size,
	// without managedFields unless asked to keep them.
	cut := meta.cutLen(data)
	obj.raw = meta.appendObject(make([]byte, 0, end-start-cut), data, start, end)
	if meta.end > 0 {
		m := obj.raw[meta.at-start : meta.end-start-cut]
		if err := decodeMeta(m, &obj.Metadata); err != nil {
			return nil, end, fmt.Errorf("metadata: %w", err)
		}
	}
	return obj, end, nil
}

// metaSpan is where an object's metadata is, and which bytes of it to cut to drop
// managedFields together with one neighbouring comma: from the end of the member
// before it, or else up to the start of the member after it. Offsets are in the
// data being decoded.
type metaSpan struct {
	at, end  int // the metadata value; end is 0 when there is none
	from, to int // bytes to cut, when n == 1
	n        int // managedFields members seen (more than one: rebuild)
}

// scan validates the metadata value at data[at] and, when cut is set, finds
// managedFields in it.
func (m *metaSpan) scan(data []byte, at int, cut bool) (int, error) {
	*m = metaSpan{at: at}
	if at >= len(data) || data[at] != '{' || !cut {
		end, err := checkValue(data, at, 1)
		m.end = end
		return end, err
	}
	prevEnd, needNext := -1, false
	end, err := walkObject(data, at, func(key []byte, begin, vAt int) (int, error) {
		if needNext {
			m.to, needNext = begin, false
		}
		end, err := checkValue(data, vAt, 2)
		if err != nil {
			return end, err
		}
		if string(key) != "managedFields" {
			prevEnd = end
			return end, nil
		}
		if m.n++; prevEnd >= 0 {
			m.from, m.to = prevEnd, end
		} else {
			m.from, m.to, needNext = begin, end, true
		}
		return end, nil
	})
	m.end = end
	return end, err
}

// cutLen is how many bytes shorter the object is without managedFields.
func (m *metaSpan) cutLen(data []byte) int {
	switch {
	case m.n == 1:
		return m.to - m.from
	case m.n > 1:
		kept, _ := sizeWithoutManagedFields(data[m.at:m.end])
		return (m.end - m.at) - kept
	}
	return 0
}

// appendObject appends data[start:end] to raw, without managedFields.
func (m *metaSpan) appendObject(raw, data []byte, start, end int) []byte {
	switch {
	case m.n == 1:
		raw = append(raw, data[start:m.from]...)
		return append(raw, data[m.to:end]...)
	case m.n > 1: // managedFields more than once (never from a real server)
		raw = append(raw, data[start:m.at]...)
		raw = appendWithoutManagedFields(raw, data[m.at:m.end])
		return append(raw, data[m.end:end]...)
	}
	return append(raw, data[start:end]...)
}

// sizeWithoutManagedFields measures the metadata object as
// appendWithoutManagedFields will write it, and says whether there is anything to cut.
func sizeWithoutManagedFields(meta []byte) (size int, cut bool) {
	size = 2 // '{' and '}'
	members := 0
	_ = eachMember(meta, func(key, _ []byte, begin, end int) error {
		if string(key) == "managedFields" {
			cut = true
			return nil
		}
		if members++; members > 1 {
			size++ // ','
		}
		size += end - begin
		return nil
	})
	if !cut {
		return len(meta), false
	}
	return size, true
}

// appendWithoutManagedFields appends the metadata object without its
// managedFields: the other members' bytes exactly, joined by commas.
func appendWithoutManagedFields(raw, meta []byte) []byte {
	raw = append(raw, '{')
	first := true
	_ = eachMember(meta, func(key, _ []byte, begin, end int) error {
		if string(key) == "managedFields" {
			return nil
		}
		if !first {
			raw = append(raw, ',')
		}
		first = false
		raw = append(raw, meta[begin:end]...)
		return nil
	})
	return append(raw, '}')
}

// stringValue reads a JSON string, or null as "".
func stringValue(value []byte) (string, error) {
	if string(value) == "null" {
		return "", nil
	}
	if len(value) == 0 || value[0] != '"' {
		return "", fmt.Errorf("want a string, got %.20s", value)
	}
	return unquote(value)
}

// Field returns the value at path inside the object, e.g. Field("spec", "nodeName")
// or Field("spec", "containers", "0", "image"): a string, bool, nil, json.Number
// (exact, whatever its size), []any or map[string]any. The second result is false
// when the path does not exist. It walks the raw bytes and decodes only the value
// found; call Decode once instead when reading many fields.
func (o *Object) Field(path ...string) (any, bool) {
	data := o.Raw()
	for _, step := range path {
		next, ok := child(data, step)
		if !ok {
			return nil, false
		}
		data = next
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	return v, true
}

// FieldString is Field for a value that should be a string.
func (o *Object) FieldString(path ...string) (string, bool) {
	v, ok := o.Field(path...)
	s, isString := v.(string)
	return s, ok && isString
}

// child finds a member of an object, or an element of an array by decimal index.
func child(data []byte, step string) ([]byte, bool) {
	var found []byte
	if i := skipSpace(data, 0); i < len(data) && data[i] == '[' {
		n, err := strconv.Atoi(step)
		if err != nil || n < 0 {
			return nil, false
		}
		_ = eachElement(data, func(v []byte) error {
			if n == 0 {
				found = v
			}
			n--
			return nil
		})
		return found, found != nil
	}
	_ = eachField(data, func(k string, v []byte, _, _ int) error {
		if k == step {
			found = v
		}
		return nil
	})
	return found, found != nil
}

// Decode decodes the object's JSON into v, a pointer to a struct of your own that
// declares just the fields you need (a typed view of any resource, generated
// code not required). Keys match case-sensitively and integers keep full int64
// precision; see Unmarshal.
func (o *Object) Decode(v any) error {
	b, err := o.MarshalJSON()
	if err != nil {
		return err
	}
	return Unmarshal(b, v)
}

// MarshalJSON returns the object's JSON with TypeMeta and Metadata as they are now
// (so changes made to a Copy are sent), and every other member as received.
func (o *Object) MarshalJSON() ([]byte, error) {
	meta, err := json.Marshal(o.Metadata)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	out.WriteByte('{')
	writeMember := func(key string, value []byte) {
		if out.Len() > 1 {
			out.WriteByte(',')
		}
		out.Write(jsonString(key))
		out.WriteByte(':')
		out.Write(value)
	}
	if o.APIVersion != "" {
		writeMember("apiVersion", jsonString(o.APIVersion))
	}
	if o.Kind != "" {
		writeMember("kind", jsonString(o.Kind))
	}
	writeMember("metadata", meta)
	err = eachField(o.Raw(), func(key string, value []byte, _, _ int) error {
		switch key {
		case "apiVersion", "kind", "metadata":
		default:
			writeMember(key, value)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out.WriteByte('}')
	return out.Bytes(), nil
}

// Copy returns a deep copy that is safe to change.
func (o *Object) Copy() *Object {
	b, err := o.MarshalJSON()
	if err != nil {
		panic(fmt.Sprintf("apiclient: copy of an object that cannot be encoded: %v", err)) // programmer error: Metadata always encodes
	}
	c, err := DecodeOptions{KeepManagedFields: true}.Decode(b)
	if err != nil {
		panic(fmt.Sprintf("apiclient: copy: %v", err))
	}
	return c
}

// jsonString encodes s as a JSON string literal.
func jsonString(s string) []byte {
	b, _ := json.Marshal(s) // a string always encodes
	return b
}
