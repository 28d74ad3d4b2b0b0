package live

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubewire/kubewire/controller/pipeline"
)

// pipeListener hands Serve the server ends of in-memory connections (net.Pipe),
// so that a test runs the real http.Server inside a synctest bubble: its
// timeouts run on the bubble's clock, and a connection nobody reads blocks at
// once (a pipe has no buffer).
type pipeListener struct {
	conns  chan net.Conn
	closed chan struct{}
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), closed: make(chan struct{})}
}

// dial returns the client end of a new connection.
func (l *pipeListener) dial() net.Conn {
	client, server := net.Pipe()
	l.conns <- server
	return client
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	select {
	case <-l.closed:
	default:
		close(l.closed)
	}
	return nil
}

func (l *pipeListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080} }

// servePipes runs h.Serve on a pipeListener until the returned stop is called.
func servePipes(h *Hub) (*pipeListener, func()) {
	ln := newPipeListener()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.Serve(ctx, ln) }()
	return ln, func() { cancel(); <-done }
}

// Issue 29: an idle keep-alive connection stayed open for ever. It is closed
// after limits.Idle now (before, this test's bubble deadlocked: nothing would
// ever close it).
func TestServe_closes_an_idle_connection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := New(Options{Command: "run"})
		ln, stop := servePipes(h)
		defer stop()
		c := ln.dial()
		defer c.Close()
		fmt.Fprint(c, "GET /api/snapshot HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n")
		r := bufio.NewReader(c)
		resp, err := http.ReadResponse(r, nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET /api/snapshot: %v, %v", resp, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		start := time.Now()
		if _, err := r.ReadByte(); err != io.EOF {
			t.Fatalf("the idle connection: %v, want it closed (EOF)", err)
		}
		if idle := time.Since(start); idle != limits.Idle {
			t.Fatalf("closed after %v idle, want %v", idle, limits.Idle)
		}
	})
}

// Issue 29: an event stream whose reader takes nothing held its place (and
// its goroutine) for ever. Its writes now have limits.Write to be taken; then
// the stream is dropped.
func TestServe_drops_a_stream_that_does_not_read(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := New(Options{Command: "run"})
		ln, stop := servePipes(h)
		defer stop()
		c := ln.dial()
		defer c.Close()
		fmt.Fprint(c, "GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n")
		synctest.Wait() // the stream is open, its first write blocked: nobody reads
		h.mu.Lock()
		open := len(h.pages)
		h.mu.Unlock()
		if open != 1 {
			t.Fatalf("%d streams open, want 1", open)
		}
		time.Sleep(limits.Write)
		synctest.Wait()
		h.mu.Lock()
		open = len(h.pages)
		h.mu.Unlock()
		if open != 0 {
			t.Fatalf("%d streams open %v after the reader stopped reading, want 0", open, limits.Write)
		}
	})
}

// Issue 39: 64 requests that declared a body and never sent it held the page
// shut for as long as they liked: the server waited for the body with no
// deadline, after its header timeout. The whole request has the read
// timeout now; then the connection is closed. (Before, this test's bubble
// deadlocked: nothing would ever close it.)
func TestServe_drops_a_request_whose_body_never_comes(t *testing.T) {
	// Not /api/events: a stream lasts for as long as its reader reads, body
	// or no body (TestServe_drops_a_stream_that_does_not_read).
	for _, path := range []string{"/api/snapshot", "/", "/static/app.js"} {
		t.Run(path, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := New(Options{Command: "run"})
				ln, stop := servePipes(h)
				defer stop()
				c := ln.dial()
				defer c.Close()
				start := time.Now()
				_ = c.SetDeadline(start.Add(time.Minute)) // a watchdog, on the bubble's clock
				go fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Length: 10\r\n\r\n", path)
				if _, err := io.Copy(io.Discard, c); err != nil && err != io.ErrClosedPipe {
					t.Fatalf("GET %s: reading the connection: %v, want it closed", path, err)
				}
				if got, want := time.Since(start), limits.Read; got != want {
					t.Fatalf("GET %s: closed after %v, want %v", path, got, want)
				}
			})
		})
	}
}

// The timeouts that drop slow requests and readers must not end a page that
// reads its stream: a stream outlives the server's write timeout (the stream
// sets a deadline of its own before each batch of writes; without it, this
// stream ended after 10 s), its read timeout and its idle timeout, however
// long it stays open.
func TestServe_a_stream_that_is_read_outlives_every_timeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var n int
		h := New(Options{Command: "run", Pipeline: func() pipeline.Snapshot {
			n++ // the counts change at every look: a snapshot every snapshotEvery
			return pipeline.Snapshot{Informers: []pipeline.Informer{{Name: "pods", Store: pipeline.Store{Objects: n}}}}
		}})
		ln, stop := servePipes(h)
		defer stop()
		c := ln.dial()
		defer c.Close()
		start := time.Now()
		go fmt.Fprint(c, "GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET /api/events: %v, %v", resp, err)
		}
		open := 3 * max(limits.Read, limits.Write, limits.Idle)
		lines := bufio.NewScanner(resp.Body)
		for time.Since(start) < open {
			if !lines.Scan() {
				t.Fatalf("the stream ended after %v (%v), want it open for %v", time.Since(start), lines.Err(), open)
			}
		}
	})
}
