package jsonwire

import (
	"errors"
	"fmt"
	"io"
)

// Reader cuts a byte stream into JSON values without copying them out: a watch
// body into events, a LIST body into its members and items. It reads into one
// buffer and hands out slices of it, valid until the next call. Walk gives the
// caller's walker the buffer itself, and the walker's validation finds where the
// value ends (apiclient's watch events and LIST items); Frame finds the end by
// tracking only strings and brackets (frameEnd, resumable, so each byte is looked
// at once however the value is split across reads) and leaves validation to its
// caller; Value validates with CheckValue (a LIST's small header members).
//
// The buffer grows to the largest value seen (bounded by max) and is reused; a
// 50 MB LIST body never sits in memory whole, only the item being read.
type Reader struct {
	r   io.Reader
	buf []byte
	// Unread bytes are buf[pos:end]. base is the stream offset of buf[0], for
	// error messages ("at byte N").
	pos, end int
	base     int64
	max      int   // no single value may be longer than this
	size     int   // the buffer's first size
	err      error // the reader's error, returned once buffered bytes run out

	// The scan of the value in progress, resumed after each read.
	scan frameScan
}

// frameScan is where frameEnd stopped: how far it has looked, bracket depth, and
// whether it is inside a string (just after a backslash).
type frameScan struct {
	at           int // offset in buf, ≥ pos
	depth        int
	inStr, escap bool
	literal      bool // a number, true, false or null: it ends at a delimiter
}

// ErrTooLarge is returned for a value longer than the reader's max.
var ErrTooLarge = errors.New("value larger than the limit")

// NewReader returns a Reader whose buffer starts at 32 KiB, grows to hold the
// largest value, and never past max.
func NewReader(r io.Reader, max int) *Reader {
	return NewReaderSize(r, 32<<10, max)
}

// NewReaderSize is NewReader with a buffer that starts at size bytes. A larger
// buffer reads more at a time: fewer reads, and fewer values cut by the buffer's
// end (see Walk). A LIST, read once and fast, wants that; a watch, which holds its
// buffer for minutes to carry a few events, does not.
func NewReaderSize(r io.Reader, size, max int) *Reader {
	return &Reader{r: r, size: min(size, max), max: max}
}

// Offset is the stream offset of the next unread byte.
func (f *Reader) Offset() int64 { return f.base + int64(f.pos) }

// Peek skips whitespace and returns the next byte without consuming it. At the end
// of the stream it returns the reader's error (io.EOF when the stream ended cleanly).
func (f *Reader) Peek() (byte, error) {
	for {
		f.pos = SkipSpace(f.buf[:f.end], f.pos)
		if f.pos < f.end {
			return f.buf[f.pos], nil
		}
		if err := f.fill(); err != nil {
			return 0, err
		}
	}
}

// Expect consumes the next non-space byte, which must be c.
func (f *Reader) Expect(c byte) error {
	got, err := f.Peek()
	if err == io.EOF {
		return fmt.Errorf("body ended at byte %d, expected %q: %w", f.Offset(), c, io.ErrUnexpectedEOF)
	}
	if err != nil {
		return err
	}
	if got != c {
		return &SyntaxError{Offset: int(f.Offset()), Msg: fmt.Sprintf("expected %q, got %q", c, got)}
	}
	f.pos++
	return nil
}

// More reads what follows the opener of a container being read piece by piece
// (first), or one of its members or elements: true when another follows (its
// comma consumed), false at the closer (consumed). At the end of the stream it
// returns the reader's error, as Peek does.
func (f *Reader) More(closer byte, first bool) (bool, error) {
	c, err := f.Peek()
	if err != nil {
		return false, err
	}
	switch {
	case c == closer:
		f.pos++
		return false, nil
	case first:
		return true, nil
	case c == ',':
		f.pos++
		return true, nil
	}
	return false, &SyntaxError{Offset: int(f.Offset()), Msg: fmt.Sprintf("expected ',' or %q, got %q", closer, c)}
}

// Value returns the next whole JSON value, validated. io.EOF means the stream
// ended cleanly between values; io.ErrUnexpectedEOF (wrapped) that it ended inside
// one. Strings and literals are framed too, for a LIST body's keys and header.
func (f *Reader) Value() ([]byte, error) {
	at := f.Offset()
	v, err := f.Frame()
	if err != nil {
		return nil, err
	}
	end, err := CheckValue(v, 0, 0)
	if err == nil && end != len(v) { // "00": a number frames to the next delimiter
		err = BadByte(v, end, "after a value")
	}
	if err != nil {
		return nil, Locate(err, at)
	}
	return v, nil
}

// Frame is Value without the validation, for callers that validate as they
// decode: they must, and report errors with Locate.
func (f *Reader) Frame() ([]byte, error) {
	if _, err := f.Peek(); err != nil {
		return nil, err
	}
	f.scan = frameScan{at: f.pos}
	for {
		end, done := f.frameEnd()
		if done {
			v := f.buf[f.pos:end]
			f.pos = end
			return v, nil
		}
		if err := f.fill(); err != nil {
			if err == io.EOF {
				return nil, fmt.Errorf("stream ended inside a value at byte %d: %w", f.Offset(), io.ErrUnexpectedEOF)
			}
			return nil, err
		}
	}
}

// Walk hands the next value to walk, which validates and decodes it in one pass
// (with WalkObject) and returns where it ends — or ErrShort when data ends first
// — and returns the stream offset where the value starts, for Locate. walk may
// be called twice for one value and must keep nothing of data.
//
// It is Frame and the caller's walk in one pass over the bytes: an object or an
// array that is whole in the buffer — nearly every item of a LIST and every
// watch event — is looked at once, by walk, with no framing scan before it (which
// cost as much as the walk itself). Only a value the buffer cuts short is framed
// (frameEnd, which resumes across reads without looking at a byte twice) and then
// walked again, so however a server splits its writes a value costs at most three
// passes, never one per read. Anything but an object or an array is framed first,
// as Frame does: a number at the end of the buffer may go on in the next read.
// Walk never waits for bytes past a value that is whole in the buffer.
//
// A cut value gets one more chance first: the buffer is read into once (the
// value needs more bytes anyway) and walked again, since a read usually brings
// what was missing; framing it is the way out when that is not enough.
func (f *Reader) Walk(walk func(data []byte) (int, error)) (int64, error) {
	c, err := f.Peek()
	at := f.Offset()
	if err != nil {
		return at, err
	}
	for try := 0; try < 2 && (c == '{' || c == '['); try++ {
		end, err := walk(f.buf[f.pos:f.end])
		if err != ErrShort {
			if err == nil {
				f.pos += end
			}
			return at, err
		}
		if try == 0 && f.fill() != nil {
			break // Frame reports the end of the stream, or the failed read
		}
	}
	v, err := f.Frame()
	if err != nil {
		return at, err
	}
	end, err := walk(v)
	if err == nil && end != len(v) {
		err = ErrShort // the frame ended where the value did not: Locate says so
	}
	return at, err
}

// Locate turns a validation error inside a framed value that starts at stream
// offset at into one with a stream offset.
func Locate(err error, at int64) error {
	var se *SyntaxError
	if errors.As(err, &se) {
		return &SyntaxError{Offset: int(at) + se.Offset, Msg: se.Msg}
	}
	if err == ErrShort { // the frame ended where the value did not
		return &SyntaxError{Offset: int(at), Msg: "value cut short or brackets mismatched"}
	}
	return err
}

// frameEnd continues the scan of the value at buf[pos:] over the bytes read since
// it last stopped; it reports the value's end once found. It does not validate:
// CheckValue does that once the value is whole.
func (f *Reader) frameEnd() (int, bool) {
	s := &f.scan
	data := f.buf[:f.end]
	if s.at == f.pos && !s.literal && !s.inStr && s.depth == 0 {
		switch data[s.at] {
		case '{', '[':
		case '"':
			s.inStr = true
			s.at++
		default:
			s.literal = true
		}
	}
	if s.literal {
		for j := s.at; j < len(data); j++ {
			if isDelimiter(data[j]) {
				return j, true
			}
		}
		s.at = len(data)
		return 0, false
	}
	for i := s.at; i < len(data); i++ {
		c := data[i]
		if s.inStr {
			switch {
			case s.escap:
				s.escap = false
			case c == '\\':
				s.escap = true
			case c == '"':
				s.inStr = false
				if s.depth == 0 {
					return i + 1, true
				}
			}
			continue
		}
		switch c {
		case '"':
			s.inStr = true
		case '{', '[':
			s.depth++
		case '}', ']':
			s.depth--
			if s.depth <= 0 {
				return i + 1, true
			}
		}
	}
	s.at = len(data)
	return 0, false
}

// fill reads more of the stream, first moving unread bytes to the front of the
// buffer (or growing it when the value in progress fills it).
func (f *Reader) fill() error {
	if f.err != nil {
		return f.err
	}
	if f.pos > 0 && f.pos == f.end {
		f.base += int64(f.pos)
		f.scan.at -= f.pos
		f.pos, f.end = 0, 0
	}
	if f.end == len(f.buf) {
		if f.pos > 0 {
			n := copy(f.buf, f.buf[f.pos:f.end])
			f.base += int64(f.pos)
			f.scan.at -= f.pos
			f.pos, f.end = 0, n
		}
		if f.end == len(f.buf) {
			if f.end >= f.max {
				return fmt.Errorf("at byte %d: %w of %d bytes", f.Offset(), ErrTooLarge, f.max)
			}
			size := max(2*len(f.buf), f.size)
			size = min(size, f.max)
			grown := make([]byte, size)
			copy(grown, f.buf[:f.end])
			f.buf = grown
		}
	}
	n, err := f.r.Read(f.buf[f.end:])
	f.end += n
	if err != nil {
		f.err = err
		if n > 0 {
			return nil
		}
		return err
	}
	return nil
}

// isDelimiter reports whether c ends a number or a literal.
func isDelimiter(c byte) bool {
	return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == ':' || c == '"' || c == '{' || c == '['
}
