package apiclient

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"
	"time"
)

// What a readAhead reads is the body, byte for byte, however the body comes in
// and however the caller reads, and the body's error comes after its last byte.
func TestReadAhead_reads_the_body_then_its_error(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 3*readChunk/16+7) // four chunks
	small := data[:5000]
	cut := errors.New("connection reset")
	for _, tt := range []struct {
		name string
		data []byte
		body io.Reader
		want error
	}{
		{"whole", data, bytes.NewReader(data), nil},
		{"one byte at a time", small, iotest.OneByteReader(bytes.NewReader(small)), nil},
		{"halves", data, iotest.HalfReader(bytes.NewReader(data)), nil},
		{"cut", data, io.MultiReader(bytes.NewReader(data), iotest.ErrReader(cut)), cut},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newReadAhead(io.NopCloser(tt.body), func() {})
			defer r.Close()
			got, err := io.ReadAll(iotest.HalfReader(r))
			if !bytes.Equal(got, tt.data) {
				t.Fatalf("read %d bytes that differ from the body's %d", len(got), len(tt.data))
			}
			if err != tt.want {
				t.Fatalf("ended with %v, want %v", err, tt.want)
			}
		})
	}
}

// Close ends a read-ahead blocked in a read that would never return by itself
// (it aborts the request, which a pipe here stands for), and waits for its
// goroutine: nothing is left reading the body.
func TestReadAhead_Close_ends_a_blocked_read(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	r := newReadAhead(pr, func() { pr.CloseWithError(errors.New("aborted")) })
	go pw.Write([]byte("x")) // one byte, then the writer sends nothing more
	buf := make([]byte, 1)
	if _, err := io.ReadFull(r, buf); err != nil {
		t.Fatal(err)
	}
	closed := make(chan struct{})
	go func() { r.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return within 10 s")
	}
	if _, err := r.Read(buf); err == nil {
		t.Fatal("a read after Close succeeded")
	}
}

// A body cut off says so with its last bytes (an HTTP body: the bytes, then
// io.ErrUnexpectedEOF, and that error again at every read after): the caller
// gets the bytes, then the error, and the read-ahead stops. (It spun forever on
// the error once, taking it for the end of a read.)
func TestReadAhead_a_cut_body_fails_once_and_stops(t *testing.T) {
	r := newReadAhead(io.NopCloser(&stickyCut{data: []byte("abc")}), func() {})
	done := make(chan struct{})
	go func() {
		defer close(done)
		got, err := io.ReadAll(r)
		if string(got) != "abc" || err != io.ErrUnexpectedEOF {
			t.Errorf("read %q, %v; want \"abc\", unexpected EOF", got, err)
		}
		r.Close()
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("no end after 10 s: the read-ahead is still reading")
	}
}

// stickyCut returns its data with io.ErrUnexpectedEOF, then the error alone.
type stickyCut struct{ data []byte }

func (s *stickyCut) Read(p []byte) (int, error) {
	n := copy(p, s.data)
	s.data = s.data[n:]
	return n, io.ErrUnexpectedEOF
}

// Nothing reads the body once Close has begun but Close's own body.Close: a
// recording.Transport's body reads itself to its end when closed, and a read
// from the goroutine at the same time was a data race (go test -race found it
// in TestIntegration_record_then_replay).
func TestReadAhead_Close_leaves_the_body_to_its_Close(t *testing.T) {
	for _, drained := range []bool{true, false} {
		body := &drainsOnClose{r: bytes.NewReader(bytes.Repeat([]byte("x"), 5*readChunk))}
		r := newReadAhead(body, func() {})
		buf := make([]byte, 10)
		if _, err := io.ReadFull(r, buf); err != nil {
			t.Fatal(err)
		}
		if drained {
			r.Drain(10 * readChunk)
		}
		r.Close()
		if !body.closed {
			t.Fatal("the body was not closed")
		}
	}
}

// drainsOnClose reads the rest of itself on Close, as recording's teeBody does.
type drainsOnClose struct {
	r      io.Reader
	closed bool
}

func (b *drainsOnClose) Read(p []byte) (int, error) { return b.r.Read(p) }
func (b *drainsOnClose) Close() error {
	io.Copy(io.Discard, b.r)
	b.closed = true
	return nil
}
