package apiclient

import (
	"io"
	"sync"
)

// readAhead reads a LIST body on a goroutine of its own while the caller
// decodes what came before: the two stages of a list that cost the client CPU —
// taking the body off the connection (inflating its gzip: a third of the client's
// CPU in a sync of 10,000 pods) and decoding the objects (decode.go) — run on two
// cores instead of taking turns on one. HTTP/2's own read loop, which decrypts,
// is a third stage already.
//
// The goroutine fills chunks of readChunk bytes and hands them over a channel
// that holds readAheadChunks of them, so it runs at most that far ahead: memory
// is bounded whatever the body's size. It is owned by the readAhead: Close stops
// it, closes the body (which ends a read the goroutine is blocked in) and waits
// for it, so it never touches the body after Close returns.
//
// Read is called by one goroutine; Close by the same one, once it is done
// reading (listEach defers it).
type readAhead struct {
	body   io.ReadCloser
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

func newReadAhead(body io.ReadCloser) *readAhead {
	r := &readAhead{
		body:   body,
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

// Close stops the goroutine, closes the body and waits for the goroutine.
func (r *readAhead) Close() error {
	var err error
	r.once.Do(func() {
		close(r.quit)
		err = r.body.Close()
	})
	<-r.done
	return err
}
