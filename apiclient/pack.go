package apiclient

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/kubewire/kubewire/apiclient/internal/delta"
)

// Packing: a cache's objects kept as their difference from one of their kind.
//
// An Object keeps its body (spec, status, data: everything but kind, apiVersion
// and metadata) as the server's bytes, and those are most of what a cache
// holds: 2.2 KB of a pod's 3.2 KB. Objects of one resource are alike — the pods
// of one Deployment differ in a name, a uid and a few values — so an informer
// keeps each body as copies from the body of one object it chose as the
// Dictionary, and the bytes that differ (internal/delta): 135 bytes on
// average for 10,000 such pods, instead of 2,304 each (2.2 KB rounded up to
// the allocator's size class).
//
// Every reader of the body unpacks it first, into a buffer used again: Raw,
// MarshalJSON and Decode write the object out anyway and pay a copy of the
// body more (0.12 µs for a pod, internal/delta's BenchmarkAppendDecoded);
// Field and FieldString read from the buffer. A Lister's reads of a decoded
// value, and the metadata, which is never packed, cost nothing more.

// Dictionary is the body of one object, indexed, for Pack to keep others
// against. It is read-only once made and safe for concurrent use; it lives as
// long as any object packed against it.
//
// An object packed against it keeps alive the body it was made of, not its
// index (four times the body's size), which only packing needs: a cache
// that replaces its Dictionary leaves the old index to the collector.
type Dictionary struct{ index *delta.Index }

// NewDictionary makes a Dictionary of o's body: choose an object typical of
// those to be packed. A body shorter than 512 bytes is not worth it: for
// those it returns nil, which Pack ignores. Cost: a pass over the body and a
// table of about two int32 per byte.
func NewDictionary(o *Object) *Dictionary {
	kept := o.kept()
	body := kept.b
	if len(body) < minDictionary {
		kept.release()
		return nil
	}
	if kept.buf != nil {
		body = append([]byte(nil), body...) // the pooled buffer goes back
	}
	kept.release()
	return &Dictionary{index: delta.NewIndex(body)}
}

// Pack keeps o's body packed against d when that takes at most three quarters
// of its bytes, and reports whether it did; an object already packed is left
// as it is. What o reads and writes does not change (Raw gives the same
// bytes), only what it holds.
//
// Pack changes o in place: call it before o is shared, as an informer does
// before an object enters its FIFO.
func (o *Object) Pack(d *Dictionary) bool {
	if o.ref != nil || d == nil || len(o.raw) < minPack {
		return false
	}
	buf := bodies.Get().(*[]byte)
	defer release(buf)
	enc := d.index.AppendEncoded((*buf)[:0], o.raw)
	*buf = enc
	if len(enc) > len(o.raw)*3/4 {
		return false
	}
	o.raw, o.ref = bytes.Clone(enc), d.index.Reference() // exactly its size: the scratch is larger
	return true
}

// Packed reports whether o keeps its body packed.
func (o *Object) Packed() bool { return o.ref != nil }

// minPack is the smallest body worth packing: below it, the allocator's
// rounding eats most of what packing saves. minDictionary is the smallest
// made a Dictionary.
const (
	minPack       = 128
	minDictionary = 512
)

// kept is an Object's body, unpacked, for one reader: release it when done.
type kept struct {
	b   []byte
	buf *[]byte // the pooled buffer b lives in, when it was unpacked
}

// bodies are buffers that packed bodies are unpacked into for a read.
var bodies = sync.Pool{New: func() any { return new([]byte) }}

// maxPooled is the largest buffer put back: a rare large object does not keep
// its buffer alive.
const maxPooled = 64 << 10

// kept returns o's body, unpacked into a pooled buffer when it is packed.
func (o *Object) kept() kept {
	if o.ref == nil {
		return kept{b: o.raw}
	}
	buf := bodies.Get().(*[]byte)
	b, err := o.ref.AppendDecoded((*buf)[:0], o.raw)
	if err != nil { // Pack wrote these bytes against this reference
		panic(fmt.Sprintf("apiclient: unpack %s: %v", o.Key(), err))
	}
	*buf = b
	return kept{b: b, buf: buf}
}

func (k kept) release() {
	if k.buf != nil {
		release(k.buf)
	}
}

// release puts buf back in the pool, unless it is too large to keep.
func release(buf *[]byte) {
	if cap(*buf) <= maxPooled {
		bodies.Put(buf)
	}
}
