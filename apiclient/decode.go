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
			if end, err = meta.scan(data, at, &obj.Metadata, opts.KeepManagedFields); err != nil {
				return end, err
			}
		default:
			if end, err = jsonwire.CheckValue(data, at, 1); err != nil {
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
		return obj, end, nil
	}
	// Keep a copy of exactly the object, in one allocation of its final size,
	// without managedFields unless asked to keep them.
	cut := meta.cutLen()
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
// whether Metadata holds all of it (metaDecoder's lossless).
type metaSpan struct {
	at, end  int // the metadata value; end is 0 when there is none
	managed  cutter
	lossless bool
}

// scan validates the metadata value at data[at] and decodes it into meta in the
// same pass, finding managedFields on the way unless they are to be kept. This is
// the one metadata decoder: FuzzDecodeMeta drives it.
func (m *metaSpan) scan(data []byte, at int, meta *ObjectMeta, keepManaged bool) (int, error) {
	*m = metaSpan{at: at, managed: newCutter()}
	if at >= len(data) || data[at] != '{' {
		end, err := jsonwire.CheckValue(data, at, 1)
		if m.end = end; err == nil && string(data[at:end]) != "null" { // null: no metadata
			err = fmt.Errorf("metadata: want an object, got %.20s", data[at:end])
		}
		return end, err
	}
	d := metaDecoder{m: meta, skipManaged: !keepManaged, lossless: true}
	end, err := jsonwire.WalkObject(data, at, 2, func(key []byte, begin, vAt int) (int, error) {
		end, err := d.member(key, data, vAt)
		if err != nil {
			return end, decodeError("metadata", err)
		}
		if !keepManaged {
			m.managed.member(string(key) == "managedFields", begin, end)
		}
		return end, nil
	})
	m.end, m.lossless = end, d.lossless && err == nil
	return end, err
}

// cutLen is how many bytes shorter the object is without managedFields: exact
// for one managedFields member, 0 (a slightly larger buffer) for several, which
// no real server sends.
func (m *metaSpan) cutLen() int {
	if m.managed.n == 1 {
		return m.managed.to - m.managed.from
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

// appendWithoutManagedFields appends the metadata object without its
// managedFields: the other members' bytes exactly, joined by commas. meta was
// validated by scan.
func appendWithoutManagedFields(raw, meta []byte) []byte {
	raw = append(raw, '{')
	first := true
	_, _ = jsonwire.WalkObject(meta, 0, 1, func(key []byte, begin, at int) (int, error) {
		end, err := jsonwire.CheckValue(meta, at, 1)
		if err == nil && string(key) != "managedFields" {
			if !first {
				raw = append(raw, ',')
			}
			first = false
			raw = append(raw, meta[begin:end]...)
		}
		return end, err
	})
	return append(raw, '}')
}
