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
// Invalid JSON is an error naming the byte offset. The stream decoders (watch.go,
// list.go) go through the same decodeAt on their buffers.
//
// Cost, for the 5.2 KB pod in testdata: one pass that validates the JSON, finds
// the members and decodes the metadata by hand as it goes (jsonvalid.go, meta.go),
// then one copy of what is kept; spec and status are not decoded at all.
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
//
// What it keeps of the bytes: when the metadata decodes losslessly (every member
// known to ObjectMeta, timestamps in the server's own form) and managedFields are
// dropped, the metadata member is cut out of raw altogether, since Metadata holds
// all of it and Raw can write it back; that saves the metadata's ~400 bytes a pod
// twice over (once in raw, once more in the allocator's rounding). Otherwise only
// managedFields is cut, and the rest kept as received.
func (opts DecodeOptions) decodeAt(data []byte, start int) (*Object, int, error) {
	obj := &Object{}
	var meta metaSpan
	top := newCutter()
	end, err := walkObject(data, start, 1, func(key []byte, begin, at int) (int, error) {
		var end int
		var err error
		switch string(key) {
		case "apiVersion", "kind":
			if end, err = checkValue(data, at, 1); err != nil {
				return end, err
			}
			dst := &obj.APIVersion
			if string(key) == "kind" {
				dst = &obj.Kind
			}
			if err := setString(dst, data[at:end], true); err != nil {
				return at, fmt.Errorf("%s: %w", key, err)
			}
		case "metadata":
			if end, err = meta.scan(data, at, &obj.Metadata, opts.KeepManagedFields); err != nil {
				return end, err
			}
		default:
			if end, err = checkValue(data, at, 1); err != nil {
				return end, err
			}
		}
		top.member(string(key) == "metadata", begin, end)
		return end, nil
	})
	if err != nil {
		return nil, end, err
	}
	if meta.end == 0 {
		obj.raw = bytes.Clone(data[start:end])
		return obj, end, nil
	}
	if meta.lossless && top.n == 1 && !opts.KeepManagedFields {
		obj.raw = top.cut(data, start, end)
		obj.metaCut = true
		return obj, end, nil
	}
	// Keep a copy of exactly the object, in one allocation of its final size,
	// without managedFields unless asked to keep them.
	cut := meta.cutLen(data)
	obj.raw = meta.appendObject(make([]byte, 0, end-start-cut), data, start, end)
	return obj, end, nil
}

// cutter finds the bytes to remove to drop one member from an object together with
// one neighbouring comma: from the end of the member before it, or else up to the
// start of the member after it. Feed it every member in order.
type cutter struct {
	from, to int // the bytes to cut (offsets in the data), when n == 1
	n        int // how many members matched (more than one: the cut is not enough)
	prevEnd  int
	needNext bool
}

func newCutter() cutter { return cutter{prevEnd: -1} }

// member records one member, from its key at begin to its value's end.
func (c *cutter) member(match bool, begin, end int) {
	if c.needNext {
		c.to, c.needNext = begin, false
	}
	if !match {
		c.prevEnd = end
		return
	}
	if c.n++; c.prevEnd >= 0 {
		c.from, c.to = c.prevEnd, end
	} else {
		c.from, c.to, c.needNext = begin, end, true
	}
}

// cut returns a copy of data[start:end] without the member, in one allocation.
func (c *cutter) cut(data []byte, start, end int) []byte {
	raw := make([]byte, 0, end-start-(c.to-c.from))
	raw = append(raw, data[start:c.from]...)
	return append(raw, data[c.to:end]...)
}

// metaSpan is where an object's metadata is, where managedFields is in it, and
// whether Metadata holds all of it (decodeMeta's lossless).
type metaSpan struct {
	at, end  int // the metadata value; end is 0 when there is none
	managed  cutter
	lossless bool
}

// scan validates the metadata value at data[at] and decodes it into meta in the
// same pass, finding managedFields on the way unless they are to be kept.
func (m *metaSpan) scan(data []byte, at int, meta *ObjectMeta, keepManaged bool) (int, error) {
	*m = metaSpan{at: at, managed: newCutter()}
	if at >= len(data) || data[at] != '{' { // null, or not metadata at all
		end, err := checkValue(data, at, 1)
		if m.end = end; err == nil {
			if _, err = decodeMeta(data[at:end], meta, !keepManaged); err != nil {
				err = fmt.Errorf("metadata: %w", err)
			}
		}
		return end, err
	}
	d := metaDecoder{m: meta, skipManaged: !keepManaged, lossless: true}
	end, err := walkObject(data, at, 2, func(key []byte, begin, vAt int) (int, error) {
		end, err := checkValue(data, vAt, 2)
		if err != nil {
			return end, err
		}
		if err := d.member(key, data[vAt:end]); err != nil {
			return vAt, fmt.Errorf("metadata: %w", err)
		}
		if !keepManaged {
			m.managed.member(string(key) == "managedFields", begin, end)
		}
		return end, nil
	})
	m.end, m.lossless = end, d.lossless && err == nil
	return end, err
}

// cutLen is how many bytes shorter the object is without managedFields.
func (m *metaSpan) cutLen(data []byte) int {
	switch {
	case m.managed.n == 1:
		return m.managed.to - m.managed.from
	case m.managed.n > 1:
		kept, _ := sizeWithoutManagedFields(data[m.at:m.end])
		return (m.end - m.at) - kept
	}
	return 0
}

// appendObject appends data[start:end] to raw, without managedFields.
func (m *metaSpan) appendObject(raw, data []byte, start, end int) []byte {
	switch {
	case m.managed.n == 1:
		raw = append(raw, data[start:m.managed.from]...)
		return append(raw, data[m.managed.to:end]...)
	case m.managed.n > 1: // managedFields more than once (never from a real server)
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
	if o.metaCut && len(path) > 0 && path[0] != "metadata" {
		data = o.raw // spec, status…: no need to write the metadata back first
	}
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
	if o.Kind != "" { // kind first, as the server writes it
		writeMember("kind", jsonString(o.Kind))
	}
	if o.APIVersion != "" {
		writeMember("apiVersion", jsonString(o.APIVersion))
	}
	writeMember("metadata", meta)
	rest := o.raw
	if len(rest) == 0 {
		rest = []byte("{}")
	}
	err = eachField(rest, func(key string, value []byte, _, _ int) error {
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
