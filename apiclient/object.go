package apiclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"sync/atomic"

	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/apiclient/internal/delta"
	"github.com/kubewire/kubewire/apiclient/internal/jsonwire"
)

// Object is one Kubernetes object of any resource — a Pod, a Deployment, a custom
// resource — with no generated type behind it.
//
// What every object shares is typed: TypeMeta (apiVersion, kind) and ObjectMeta
// (name, namespace, uid, resourceVersion, labels, …). Everything else (spec, status,
// data) stays as the JSON the server sent, reachable with Field, or decoded into a
// struct of your own with Decode.
//
// Why this shape: a controller's cost is its cache, and a cached object is read far
// less often than it is stored. Keeping the body as one []byte costs its length plus
// one allocation, where a map[string]any of the same pod costs several times that in
// small allocations. The metadata that the pipeline reads on every event (keys,
// resourceVersion, labels for indexes) is decoded once.
//
// A cache keeps one Object per object and hands out Copies: what an informer's
// Get, List and ByIndex return and what its handlers are given is yours to change.
// An index function sees the cache's own Object and must treat it as read-only
// (a Transform sees an object before it is cached, and may reshape it). Copy is cheap: it copies the
// metadata and shares the body, which nothing modifies. The zero value is an
// empty object (Raw returns "{}").
type Object struct {
	TypeMeta
	Metadata ObjectMeta

	// raw is the object's JSON as the server sent it, less the metadata member:
	// Metadata holds that, and Raw writes it from there (see decodeAt). Never
	// modified after decoding. When ref is set, raw holds them packed against
	// it (pack.go), and every reader unpacks them first.
	raw []byte
	ref *delta.Reference

	// decoded is the value DecodeOnce made of this object, if any (decodeonce.go).
	decoded atomic.Pointer[decodedValue]
}

// TypeMeta names an object's schema: apiVersion ("v1", "apps/v1") and kind ("Pod").
type TypeMeta struct {
	Kind       string `json:"kind,omitempty"`
	APIVersion string `json:"apiVersion,omitempty"`
}

// The Get methods let the leaf packages (store, fifo), which may not import
// apiclient, key and index an Object through small interfaces of their own.

// GetName returns metadata.name.
func (o *Object) GetName() string { return o.Metadata.Name }

// GetNamespace returns metadata.namespace ("" for cluster-scoped objects).
func (o *Object) GetNamespace() string { return o.Metadata.Namespace }

// GetResourceVersion returns metadata.resourceVersion.
func (o *Object) GetResourceVersion() string { return o.Metadata.ResourceVersion }

// GetLabels returns metadata.labels; the map is shared, do not modify it.
func (o *Object) GetLabels() map[string]string { return o.Metadata.Labels }

// Key returns "namespace/name", or "name" for a cluster-scoped object: the key the
// store files the object under.
func (o *Object) Key() string {
	return clock.ObjectKey(o.Metadata.Namespace, o.Metadata.Name)
}

// Raw returns the object's JSON as it is now: kind, apiVersion and metadata
// written from TypeMeta and Metadata, every other member (spec, status, data…) as
// the server sent it. That is one meaning for every object, however it was
// decoded: a change made to obj.Metadata after decoding shows in Raw, and Raw is
// what MarshalJSON, Decode and Update send or read. managedFields are in it only
// when the decoder kept them (DecodeOptions.KeepManagedFields); metadata members
// that ObjectMeta does not declare are not kept.
//
// For an object just decoded these are the server's bytes: ObjectMeta's fields
// are in the order the server writes them (TestRaw_gives_the_servers_bytes_without_managedFields).
// Each call encodes the metadata (a few microseconds for a pod): keep what Raw
// returns rather than calling it in a loop. The zero Object gives "{}".
func (o *Object) Raw() []byte {
	if len(o.raw) == 0 && o.TypeMeta == (TypeMeta{}) && reflect.ValueOf(o.Metadata).IsZero() {
		return []byte("{}")
	}
	b, err := o.MarshalJSON()
	if err != nil { // kept bytes are validated and Metadata always encodes
		panic(fmt.Sprintf("apiclient: raw of an object that cannot be encoded: %v", err))
	}
	return b
}

// String returns "Kind namespace/name rv=N", for logs.
func (o *Object) String() string {
	return fmt.Sprintf("%s %s rv=%s", o.Kind, o.Key(), o.Metadata.ResourceVersion)
}

// Field returns the value at path inside the object, e.g. Field("spec", "nodeName")
// or Field("spec", "containers", "0", "image"): a string, bool, nil, json.Number
// (exact, whatever its size), []any or map[string]any. The second result is false
// when the path does not exist. The path is looked up in Raw; outside kind,
// apiVersion and metadata it walks the kept bytes without encoding anything, and
// decodes only the value found. Call Decode once instead when reading many fields.
func (o *Object) Field(path ...string) (any, bool) {
	kept := o.kept()
	defer kept.release()
	v, ok := o.find(kept.b, path)
	if !ok {
		return nil, false
	}
	switch v[0] {
	case '"':
		s, err := jsonwire.Unquote(v)
		return s, err == nil
	case 't', 'f':
		return v[0] == 't', true
	case 'n':
		return nil, true
	case '{', '[':
		dec := json.NewDecoder(bytes.NewReader(v))
		dec.UseNumber()
		var x any
		err := dec.Decode(&x)
		return x, err == nil
	}
	return json.Number(v), true
}

// FieldString is Field for a value that should be a string. It allocates only
// the string it returns (a packed object is unpacked into a buffer that is
// used again).
func (o *Object) FieldString(path ...string) (string, bool) {
	kept := o.kept()
	defer kept.release()
	v, ok := o.find(kept.b, path)
	if !ok || v[0] != '"' {
		return "", false
	}
	s, err := jsonwire.Unquote(v)
	return s, err == nil
}

// find returns the bytes of the value at path in Raw. Only kind, apiVersion and
// metadata are written from fields; anything else is read from the kept bytes,
// unpacked, which hold it exactly as Raw would write it.
func (o *Object) find(kept []byte, path []string) ([]byte, bool) {
	data := kept
	if len(path) == 0 || path[0] == "kind" || path[0] == "apiVersion" || path[0] == "metadata" {
		data = o.Raw()
	}
	for _, step := range path {
		next, ok := child(data, step)
		if !ok {
			return nil, false
		}
		data = next
	}
	return data, len(data) > 0
}

// child finds a member of an object (the last, if the key repeats, as
// encoding/json decodes it), or an element of an array by decimal index.
func child(data []byte, step string) ([]byte, bool) {
	from, to := -1, -1
	i := jsonwire.SkipSpace(data, 0)
	if i < len(data) && data[i] == '[' {
		n, err := strconv.Atoi(step)
		if err != nil || n < 0 {
			return nil, false
		}
		_, _ = jsonwire.WalkArray(data, i, 1, func(at int) (int, error) {
			end, err := jsonwire.CheckValue(data, at, 1)
			if n == 0 && err == nil {
				from, to = at, end
				return end, errFound
			}
			n--
			return end, err
		})
	} else {
		_, _ = jsonwire.WalkObject(data, i, 1, func(key []byte, _, at int) (int, error) {
			end, err := jsonwire.CheckValue(data, at, 1)
			if err == nil && string(key) == step {
				from, to = at, end
			}
			return end, err
		})
	}
	if from < 0 {
		return nil, false
	}
	return data[from:to], true
}

// errFound stops a walk once the value sought is found.
var errFound = errors.New("found")

// Decode decodes the object (as Raw gives it) into v, a pointer to a struct of
// your own that declares just the fields you need: a typed view of any resource,
// generated code not required. It goes through Unmarshal, which reads JSON as the
// API server does: integers keep full int64 precision, and keys match field names
// exactly. That second rule is a pitfall: encoding/json alone would put the key
// "type" into an untagged field Type, but here an untagged
//
//	struct{ Type, Status string }
//
// decodes a condition to two empty strings, with no error. The fix is a json tag
// on every field, spelled as the API spells the key:
//
//	struct {
//		Type   string `json:"type"`
//		Status string `json:"status"`
//	}
//
// (ExampleObject_Decode shows both.) Each call encodes the metadata and decodes
// by reflection: call it once per object and read the fields from the struct.
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
	kept := o.kept()
	defer kept.release()
	rest := kept.b
	if len(rest) == 0 {
		rest = []byte("{}")
	}
	_, err = jsonwire.WalkObject(rest, jsonwire.SkipSpace(rest, 0), 1, func(key []byte, _, at int) (int, error) {
		end, err := jsonwire.CheckValue(rest, at, 1)
		if err != nil {
			return end, err
		}
		switch string(key) {
		case "apiVersion", "kind", "metadata":
		default:
			writeMember(string(key), rest[at:end])
		}
		return end, nil
	})
	if err != nil {
		return nil, err
	}
	out.WriteByte('}')
	return out.Bytes(), nil
}

// Copy returns a copy that is safe to change: TypeMeta and Metadata are copied
// deeply (its maps and slices are new), and the rest of the object — kept as the
// server's bytes, which nothing ever modifies — is shared. It costs the metadata's
// maps and slices, not the object's size; a value decoded with DecodeOnce is not
// carried over. A packed object's copy is packed too, against the same
// Dictionary.
func (o *Object) Copy() *Object {
	return &Object{TypeMeta: o.TypeMeta, Metadata: o.Metadata.DeepCopy(), raw: o.raw, ref: o.ref}
}

// jsonString encodes s as a JSON string literal.
func jsonString(s string) []byte {
	b, _ := json.Marshal(s) // a string always encodes
	return b
}
