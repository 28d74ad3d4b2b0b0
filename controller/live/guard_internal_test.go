package live

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"
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
// after idleTimeout now (before, this test's bubble deadlocked: nothing would
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
		if idle := time.Since(start); idle != idleTimeout {
			t.Fatalf("closed after %v idle, want %v", idle, idleTimeout)
		}
	})
}

// Issue 29: an event stream whose reader takes nothing held its place (and
// its goroutine) for ever. Its writes now have writeTimeout to be taken; then
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
		time.Sleep(writeTimeout)
		synctest.Wait()
		h.mu.Lock()
		open = len(h.pages)
		h.mu.Unlock()
		if open != 0 {
			t.Fatalf("%d streams open %v after the reader stopped reading, want 0", open, writeTimeout)
		}
	})
}

// FuzzHostAllow: whatever a Host header says, a page bound to 127.0.0.1:8080
// answers it only when it names port 8080 and a loopback address or
// "localhost", never a panic.
func FuzzHostAllow(f *testing.F) {
	for _, s := range []string{"127.0.0.1:8080", "localhost:8080", "LOCALHOST.:8080", "[::1]:8080", "evil.example:8080", "127.0.0.1.nip.io:8080", "127.0.0.1", "[::1", ":8080", ""} {
		f.Add(s)
	}
	allowed := hostsFor(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080})
	f.Fuzz(func(t *testing.T, host string) {
		if !allowed.allow(host) {
			return
		}
		name, port, err := net.SplitHostPort(host)
		if err != nil || port != "8080" {
			t.Fatalf("allowed %q: not port 8080", host)
		}
		name = strings.TrimSuffix(strings.ToLower(name), ".")
		if ip := net.ParseIP(name); (ip == nil || !ip.IsLoopback()) && name != "localhost" {
			t.Fatalf("allowed %q: neither loopback nor localhost", host)
		}
	})
}
