package apiclient

import (
	"bytes"
	"fmt"

	"github.com/kubewire/kubewire/apiclient/internal/jsonwire"
)

// DecodeOptions tune how an object's JSON becomes an Object.
// The zero value drops managedFields, as an informer's default transform does.
type DecodeOptions struct {
	// KeepManagedFields keeps metadata.managedFields in Raw and in Metadata.
	KeepManagedFields bool
	// Reuse, when set, is shown each object once it is validated and its
	// metadata decoded, before its bytes are copied (Raw is not there yet): an
	// object it returns is handed on in its place, and the copy is never made.
	// A relist hands the cache's own object back for every object that did not
	// change (listwatch.Holder), so that listing again allocates a fifth of what
	// a first list does for them: the metadata, not the bytes.
	Reuse func(decoded *Object) *Object
	// Pack, when set, is given each object it decodes (not those Reuse
	// replaced), complete, before the next is read: a cache packs it there
	// (Object.Pack), so that the bytes of a whole list are never alive
	// unpacked together.
	Pack func(decoded *Object)
}

// DecodeObject turns one object's JSON into an Object, dropping managedFields.
// Invalid JSON is an error naming the byte offset. The stream decoders (watch.go,
// list.go) go through the same decodeAt on their buffers.
//
// Cost, for the 5.2 KB pod in testdata: one pass that validates the JSON, finds
// the members and decodes the metadata by hand as it goes (jsonwire.WalkObject,
// meta.go), then one copy of what is kept; spec and status are not decoded at all.
func DecodeObject(data []byte) (*Object, error) {
	return DecodeOptions{}.Decode(data)
}

// Decode is DecodeObject with options.
func (opts DecodeOptions) Decode(data []byte) (*Object, error) {
	obj, end, err := opts.decodeAt(data, jsonwire.SkipSpace(data, 0))
	if err = jsonwire.Whole(data, end, err); err != nil {
		return nil, fmt.Errorf("decode object: %w", err)
	}
	return obj, nil
}

// decodeAt validates and decodes the object that starts at data[start], in one
// pass, and returns where it ends. The stream readers call it on their buffers:
// the result never aliases data.
//
// What it keeps of the bytes: every member but metadata, in one allocation of its
// final size. Metadata holds the metadata (managedFields too, when asked to keep
// them), and Raw writes it from there; that saves the metadata's ~400 bytes a pod
// twice over (once in raw, once more in the allocator's rounding), and
// managedFields' ~2.5 KB.
func (opts DecodeOptions) decodeAt(data []byte, start int) (*Object, int, error) {
	obj := &Object{}
	meta := newCutter()
	end, err := jsonwire.WalkObject(data, start, 1, func(key []byte, begin, at int) (int, error) {
		var end int
		var err error
		switch string(key) {
		case "apiVersion", "kind":
			if end, err = jsonwire.CheckValue(data, at, 1); err != nil {
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
			d := metaDecoder{m: &obj.Metadata, skipManaged: !opts.KeepManagedFields}
			if end, err = d.decode(data, at); err != nil {
				return end, err
			}
		default:
			if end, err = jsonwire.CheckValue(data, at, 1); err != nil {
				return end, err
			}
		}
		meta.member(string(key) == "metadata", begin, end)
		return end, nil
	})
	if err != nil {
		return nil, end, err
	}
	if opts.Reuse != nil {
		if same := opts.Reuse(obj); same != nil {
			return same, end, nil
		}
	}
	switch meta.n {
	case 0:
		obj.raw = bytes.Clone(data[start:end])
	case 1:
		obj.raw = meta.cut(data, start, end)
	default: // metadata more than once: no server sends that
		obj.raw = appendWithout(nil, data[start:end], "metadata")
	}
	if opts.Pack != nil {
		opts.Pack(obj)
	}
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

// appendWithout appends the JSON object obj without its members named key: the
// other members' bytes exactly, joined by commas. obj has been validated.
func appendWithout(raw, obj []byte, key string) []byte {
	raw = append(raw, '{')
	first := true
	_, _ = jsonwire.WalkObject(obj, 0, 1, func(k []byte, begin, at int) (int, error) {
		end, err := jsonwire.CheckValue(obj, at, 1)
		if err == nil && string(k) != key {
			if !first {
				raw = append(raw, ',')
			}
			first = false
			raw = append(raw, obj[begin:end]...)
		}
		return end, err
	})
	return append(raw, '}')
}
