package apiclient

import (
	"io"
	"sync"
)

// readAhead reads a LIST body on a goroutine of its own while the caller
// decodes what came before: the two stages of a list that cost the client CPU —
// taking the body off the connection (inflating its gzip: about a quarter of the
// client's CPU in a sync of 10,000 pods, 26% in a profile on v1.37.2, 2026-11-28)
// and decoding the objects (decode.go, about 45%) — run on two cores instead of
// taking turns on one. Inflating is still cheaper than not compressing: without
// gzip the client reads, decrypts and acknowledges five times the bytes
// (listwatch/doc.go has the figures). HTTP/2's own read loop, which decrypts,
// is a third stage already.
//
// The goroutine fills chunks of readChunk bytes and hands them over a channel
// that holds readAheadChunks of them, so it runs at most that far ahead: memory
// is bounded whatever the body's size. It is owned by the readAhead: Close stops
// it and waits for it before it closes the body, so that nothing reads the body
// once Close has begun (a recording.Transport's body reads itself to its end on
// Close); when the goroutine has not reached the body's end, Close ends the
// request first (abort), which ends a read it is blocked in.
//
// Read is called by one goroutine; Close by the same one, once it is done
// reading (listPage defers it, and reads a decoded list's body to its end
// first: Drain).
type readAhead struct {
	body   io.ReadCloser
	abort  func()        // ends the request: the transport then fails a read in progress
	chunks chan chunk    // filled chunks, in order; closed after the last
	free   chan []byte   // buffers the caller has read out, for the goroutine to fill again
	quit   chan struct{} // closed by Close
	done   chan struct{} // closed when the goroutine has returned
	once   sync.Once

	cur  chunk // the chunk being read out
	read int   // how much of cur.data the caller has had
}

// chunk is one read of the body: its bytes, or the error that ended it.
type chunk struct {
	data []byte
	err  error
}

const (
	readChunk       = 64 << 10
	readAheadChunks = 4
)

func newReadAhead(body io.ReadCloser, abort func()) *readAhead {
	r := &readAhead{
		body:   body,
		abort:  abort,
		chunks: make(chan chunk, readAheadChunks),
		free:   make(chan []byte, readAheadChunks+1),
		quit:   make(chan struct{}),
		done:   make(chan struct{}),
	}
	go r.fill()
	return r
}

// fill is the goroutine: read the body into free buffers until it ends or fails,
// or until Close.
func (r *readAhead) fill() {
	defer close(r.done)
	defer close(r.chunks)
	for {
		var buf []byte
		select {
		case buf = <-r.free:
		default:
			buf = make([]byte, readChunk)
		}
		n, err := r.body.Read(buf[:cap(buf)])
		if n > 0 {
			select {
			case r.chunks <- chunk{data: buf[:n]}:
			case <-r.quit:
				return
			}
		}
		if err != nil {
			select {
			case r.chunks <- chunk{err: err}:
			case <-r.quit:
			}
			return
		}
	}
}

// Read copies from the chunk at hand, waiting for the next one when it is used
// up. The body's error (io.EOF at its end) comes after its last byte.
func (r *readAhead) Read(p []byte) (int, error) {
	for r.read == len(r.cur.data) {
		if r.cur.err != nil {
			return 0, r.cur.err
		}
		if r.cur.data != nil {
			select {
			case r.free <- r.cur.data[:cap(r.cur.data)]:
			default:
			}
		}
		c, ok := <-r.chunks
		if !ok { // Close ran: nothing more will come
			c.err = io.ErrClosedPipe
		}
		r.cur, r.read = c, 0
	}
	n := copy(p, r.cur.data[r.read:])
	r.read += n
	return n, nil
}

// Drain reads what is left of the body, up to max bytes: after the JSON a
// server sends a newline and ends the body, and a body read to its end is one
// the transport can reuse the connection of (and a recording calls finished).
func (r *readAhead) Drain(max int64) {
	io.Copy(io.Discard, io.LimitReader(r, max))
}

// Close stops the goroutine and waits for it, then closes the body. When the
// body's end has not been read, the goroutine may be blocked in a read that
// only ends with the request: Close aborts it first.
func (r *readAhead) Close() error {
	var err error
	r.once.Do(func() {
		close(r.quit)
		if r.cur.err == nil { // the end not reached: the goroutine may be reading still
			r.abort()
		}
		<-r.done
		err = r.body.Close()
	})
	return err
}
