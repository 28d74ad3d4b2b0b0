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
// Cost: one pass to validate, one to find the members, one copy of data, and a
// small decode of metadata alone; spec and status are not decoded at all.
func DecodeObject(data []byte) (*Object, error) {
	return DecodeOptions{}.Decode(data)
}

// Decode is DecodeObject with options.
func (opts DecodeOptions) Decode(data []byte) (*Object, error) {
	if !json.Valid(data) {
		return nil, fmt.Errorf("decode object: %w", validate(data))
	}
	return opts.decode(data)
}

// decode builds an Object from valid JSON. The result never aliases data, so the
// caller may reuse its buffer.
func (opts DecodeOptions) decode(data []byte) (*Object, error) {
	obj := &Object{}
	var meta []byte
	metaAt := -1
	err := eachField(data, func(key string, value []byte, _, end int) error {
		var err error
		switch key {
		case "apiVersion":
			obj.APIVersion, err = stringValue(value)
		case "kind":
			obj.Kind, err = stringValue(value)
		case "metadata":
			meta, metaAt = value, end-len(value)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("decode object: %w", err)
	}
	if meta == nil {
		obj.raw = bytes.Clone(data)
		return obj, nil
	}
	obj.raw = nil
	if !opts.KeepManagedFields {
		cut, ok, err := withoutMember(meta, "managedFields")
		if err != nil {
			return nil, fmt.Errorf("decode object: metadata: %w", err)
		}
		if ok {
			// Rebuild raw around the shorter metadata: one allocation of the final size.
			raw := make([]byte, 0, len(data)-(len(meta)-len(cut)))
			raw = append(append(append(raw, data[:metaAt]...), cut...), data[metaAt+len(meta):]...)
			obj.raw, meta = raw, cut
		}
	}
	if obj.raw == nil {
		// Keep a copy of exactly the object: data may be a decoder's buffer that
		// is about to be reused.
		start := metaAt
		obj.raw = bytes.Clone(data)
		meta = obj.raw[start : start+len(meta)]
	}
	if err := unmarshalMeta(meta, &obj.Metadata); err != nil {
		return nil, fmt.Errorf("decode object: metadata: %w", err)
	}
	return obj, nil
}

// withoutMember returns the JSON object in data with the member named key removed
// (and a neighbouring comma), and whether it was there.
func withoutMember(data []byte, key string) ([]byte, bool, error) {
	begin, end := -1, -1
	err := eachField(data, func(k string, _ []byte, b, e int) error {
		if k == key {
			begin, end = b, e
		}
		return nil
	})
	if err != nil || begin < 0 {
		return data, false, err
	}
	// Take the comma after the member, or failing that the one before it.
	if j := skipSpace(data, end); j < len(data) && data[j] == ',' {
		end = skipSpace(data, j+1)
	} else if k := bytes.LastIndexByte(data[:begin], ','); k >= 0 {
		begin = k
	}
	out := make([]byte, 0, len(data)-(end-begin))
	return append(append(out, data[:begin]...), data[end:]...), true, nil
}

// metaKeys are ObjectMeta's JSON names. encoding/json matches keys to fields
// ignoring case; Kubernetes does not. A key that differs from a field name only in
// case ("Name") is unknown to the API and must not land in a field, so metadata
// holding one goes through the strict decoder instead.
var metaKeys = map[string]bool{
	"name": true, "generateName": true, "namespace": true, "uid": true,
	"resourceVersion": true, "generation": true, "creationTimestamp": true,
	"deletionTimestamp": true, "labels": true, "annotations": true,
	"ownerReferences": true, "finalizers": true, "managedFields": true,
	"deletionGracePeriodSeconds": true, "selfLink": true,
}

func unmarshalMeta(data []byte, m *ObjectMeta) error {
	exact := true
	err := eachField(data, func(key string, _ []byte, _, _ int) error {
		if !metaKeys[key] {
			exact = false
		}
		return nil
	})
	if err != nil {
		return err
	}
	if !exact {
		return Unmarshal(data, m)
	}
	return json.Unmarshal(data, m)
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

// validate explains why data is not valid JSON, with the offset encoding/json found.
func validate(data []byte) error {
	var v any
	err := json.Unmarshal(data, &v)
	if se, ok := err.(*json.SyntaxError); ok {
		return fmt.Errorf("invalid JSON at byte %d: %s", se.Offset, se.Error())
	}
	if err != nil {
		return err
	}
	return fmt.Errorf("invalid JSON")
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
	c, err := DecodeOptions{KeepManagedFields: true}.decode(b)
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
