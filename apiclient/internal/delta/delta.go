package delta

import (
	"encoding/binary"
	"errors"
)

// Reference is the bytes others are encoded against: all that decoding
// needs, and what an encoded string keeps alive. Read-only.
type Reference struct {
	ref []byte
}

// Index is a Reference with an index of where each four-byte sequence occurs
// in it: what encoding needs, about four times the reference's size, which
// is garbage once the Index is dropped, whatever was encoded with it.
// Read-only once built.
type Index struct {
	r     *Reference
	table []int32 // by hash of four bytes: 1 + the last offset it starts at; 0 for none
	shift uint
}

// minMatch is the shortest copy worth a step: a step costs two or three bytes
// of lengths and an offset.
const minMatch = 6

// NewIndex indexes ref, which it keeps and which must not change.
func NewIndex(ref []byte) *Index {
	bits := uint(8)
	for 1<<bits < 2*len(ref) && bits < 20 {
		bits++
	}
	x := &Index{r: &Reference{ref: ref}, table: make([]int32, 1<<bits), shift: 32 - bits}
	for i := 0; i+4 <= len(ref); i++ {
		x.table[x.hash(ref[i:])] = int32(i + 1)
	}
	return x
}

// Reference is what x indexes: what decoding needs.
func (x *Index) Reference() *Reference { return x.r }

// AppendEncoded appends b, as steps against r's reference, to out. A cache
// keeping the result appends to a scratch buffer and keeps a copy of the
// result's length: the result's size is not known until it is written.
func (x *Index) AppendEncoded(out, b []byte) []byte {
	out = binary.AppendUvarint(out, uint64(len(b)))
	ref := x.r.ref
	lit := 0  // where the pending literal starts
	next := 0 // where in ref the last copy ended: the first candidate
	for i := 0; i+minMatch <= len(b); {
		// The place just after the last copy first: objects that are alike
		// differ in short runs, after which they are in step again.
		c, n := next, 0
		if d := i - lit; c+d < len(ref) {
			c += d
			n = common(b[i:], ref[c:])
		}
		if n < minMatch {
			if at := int(x.table[x.hash(b[i:])]) - 1; at >= 0 {
				if m := common(b[i:], ref[at:]); m >= minMatch && m > n {
					c, n = at, m
				}
			}
		}
		if n < minMatch {
			i++
			continue
		}
		for i > lit && c > 0 && b[i-1] == ref[c-1] { // extend back into the literal
			i, c, n = i-1, c-1, n+1
		}
		out = binary.AppendUvarint(out, uint64(i-lit))
		out = append(out, b[lit:i]...)
		out = binary.AppendUvarint(out, uint64(n))
		out = binary.AppendUvarint(out, uint64(c))
		i += n
		lit, next = i, c+n
	}
	if lit < len(b) {
		out = binary.AppendUvarint(out, uint64(len(b)-lit))
		out = append(out, b[lit:]...)
		out = binary.AppendUvarint(out, 0)
	}
	return out
}

// ErrCorrupt is AppendDecoded's error for bytes AppendEncoded did not make
// against this reference.
var ErrCorrupt = errors.New("delta: corrupt")

// AppendDecoded appends the bytes enc stands for to dst.
func (r *Reference) AppendDecoded(dst, enc []byte) ([]byte, error) {
	total, k := binary.Uvarint(enc)
	if k <= 0 || total > uint64(len(enc))*uint64(len(r.ref)+1)+uint64(len(enc)) {
		return dst, ErrCorrupt
	}
	enc = enc[k:]
	want := len(dst) + int(total)
	dst = grow(dst, int(total))
	for len(dst) < want {
		n, k := binary.Uvarint(enc)
		if k <= 0 || n > uint64(len(enc)-k) || n > uint64(want-len(dst)) {
			return dst, ErrCorrupt
		}
		dst = append(dst, enc[k:k+int(n)]...)
		enc = enc[k+int(n):]
		m, k := binary.Uvarint(enc)
		if k <= 0 || m > uint64(want-len(dst)) {
			return dst, ErrCorrupt
		}
		enc = enc[k:]
		if m == 0 {
			continue
		}
		off, k := binary.Uvarint(enc)
		if k <= 0 || off > uint64(len(r.ref)) || m > uint64(len(r.ref))-off {
			return dst, ErrCorrupt
		}
		enc = enc[k:]
		dst = append(dst, r.ref[off:off+m]...)
	}
	if len(enc) != 0 {
		return dst, ErrCorrupt
	}
	return dst, nil
}

// Size is the length of the bytes enc stands for, as AppendEncoded wrote it.
func Size(enc []byte) int {
	n, k := binary.Uvarint(enc)
	if k <= 0 {
		return 0
	}
	return int(n)
}

// hash of the four bytes at b[0:4].
func (x *Index) hash(b []byte) uint32 {
	return (binary.LittleEndian.Uint32(b) * 0x9E3779B1) >> x.shift
}

// common is the length of the prefix a and b share.
func common(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i+8 <= n && binary.LittleEndian.Uint64(a[i:]) == binary.LittleEndian.Uint64(b[i:]) {
		i += 8
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// grow makes room for n more bytes in dst.
func grow(dst []byte, n int) []byte {
	if cap(dst)-len(dst) >= n {
		return dst
	}
	out := make([]byte, len(dst), len(dst)+n)
	copy(out, dst)
	return out
}
