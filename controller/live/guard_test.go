package live_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kubewire/kubewire/controller/live"
	"github.com/kubewire/kubewire/controller/trace"
)

// served serves h as the command does (live.Listen, Hub.Serve) on a free
// loopback port, until the test ends, and returns its address.
func served(t *testing.T, h *live.Hub) string {
	t.Helper()
	ln, err := live.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.Serve(ctx, ln) }()
	t.Cleanup(func() { cancel(); <-done })
	return ln.Addr().String()
}

// request sends one raw HTTP/1.1 request on a new connection and returns the
// status line ("" if the connection was closed without an answer).
func request(t *testing.T, addr, method, path, host string, header ...string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Minute)) // a watchdog, not a timing
	fmt.Fprintf(c, "%s %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n%s\r\n", method, path, host, strings.Join(append(header, ""), "\r\n"))
	status, _ := bufio.NewReader(c).ReadString('\n')
	return strings.TrimSpace(status)
}

// Issue 29, DNS rebinding: another website the user visits points its own name
// at 127.0.0.1, and the browser lets its script read the page's API as the
// website's own. The page now answers only to the address it was opened on
// (and loopback names, for a loopback bind); before, any Host got 200.
func TestServe_refuses_a_Host_that_is_not_its_address(t *testing.T) {
	h := live.New(live.Options{Command: "run"})
	addr := served(t, h)
	_, port, _ := net.SplitHostPort(addr)
	for host, want := range map[string]string{
		addr:                       "200",
		"localhost:" + port:        "200",
		"LOCALHOST.:" + port:       "200",
		"[::1]:" + port:            "200",
		"evil.example:" + port:     "403",
		"127.0.0.1.nip.io:" + port: "403",
		"localhost:1":              "403",
		"192.0.2.7:" + port:        "403",
		"":                         "",
	} {
		for _, path := range []string{"/api/snapshot", "/", "/api/events"} {
			if want == "" {
				continue // HTTP/1.1 without a Host is refused by net/http itself (400)
			}
			got := request(t, addr, "GET", path, host)
			if method := "GET"; !strings.Contains(got, " "+want+" ") {
				t.Errorf("%s %s with Host %q: %q, want %s", method, path, host, got, want)
			}
		}
	}
}

// Issue 29: a cross-origin POST /api/step (text/plain, which a browser sends
// without asking) was accepted with 204, so any website could step the user's
// pipeline. A request that changes something needs the page's own Origin.
func TestServe_takes_a_step_only_from_its_own_origin(t *testing.T) {
	h := live.New(live.Options{Command: "demo", Step: true})
	addr := served(t, h)
	traced := make(chan struct{})
	go func() {
		h.Trace(trace.Event{Stage: trace.FIFO, Verb: "pop", Delta: "Added", Key: "demo/web-2", ResourceVersion: "7"})
		close(traced)
	}() // waits for a step
	t.Cleanup(h.Close)
	for _, origin := range []string{"http://evil.example", "null", "http://" + addr + ".evil.example", ""} {
		header := []string{"Content-Type: text/plain", "Content-Length: 0"}
		if origin != "" {
			header = append(header, "Origin: "+origin)
		}
		if got := request(t, addr, "POST", "/api/step", addr, header...); !strings.Contains(got, " 403 ") {
			t.Errorf("POST /api/step from origin %q: %q, want 403", origin, got)
		}
	}
	select {
	case <-traced:
		t.Fatal("a refused POST /api/step let the paused hop go on")
	default:
	}
	// The page's own POST: 204 once the hop has paused, 409 before.
	for deadline := time.Now().Add(time.Minute); ; {
		got := request(t, addr, "POST", "/api/step", addr, "Origin: http://"+addr, "Content-Length: 0")
		if strings.Contains(got, " 204 ") {
			break
		}
		if !strings.Contains(got, " 409 ") || time.Now().After(deadline) {
			t.Fatalf("POST /api/step from the page's own origin: %q, want 204", got)
		}
	}
	<-traced
}

// Issue 29: 3,000 idle keep-alive connections stayed open (~35 KB each). At
// most 64 are open now: past them, a connection is closed as it comes, without
// an answer (before: answered, and kept).
func TestServe_bounds_its_connections(t *testing.T) {
	h := live.New(live.Options{Command: "run"})
	addr := served(t, h)
	var held []net.Conn
	t.Cleanup(func() {
		for _, c := range held {
			c.Close()
		}
	})
	for range 64 { // each makes a request and keeps its connection, idle
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
		_ = c.SetDeadline(time.Now().Add(time.Minute))
		fmt.Fprintf(c, "GET /api/snapshot HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	if got := request(t, addr, "GET", "/api/snapshot", addr); got != "" {
		t.Fatalf("with 64 connections open, another got %q; want it closed unanswered", got)
	}
	held[0].Close()
	held = held[1:]
	for deadline := time.Now().Add(time.Minute); ; { // the slot is given back when the server sees the close
		if got := request(t, addr, "GET", "/api/snapshot", addr); strings.Contains(got, " 200 ") {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("after one of 64 connections closed, another still got %q", got)
		}
	}
}

// Issue 29: 32 event streams that never read kept every later page out with
// 503. The page somebody opens now replaces the oldest stream.
func TestServe_a_new_page_replaces_the_oldest_stream(t *testing.T) {
	h := live.New(live.Options{Command: "run"})
	addr := served(t, h)
	var streams []*http.Response
	for i := range 33 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(time.Minute)) // a watchdog
		fmt.Fprintf(c, "GET /api/events HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("page %d of 33: %v %v, want 200", i+1, resp, err)
		}
		streams = append(streams, resp)
	}
	// The first stream ends (its body is complete); the others go on.
	if _, err := io.ReadAll(streams[0].Body); err != nil {
		t.Fatalf("the oldest stream, replaced: %v; want it ended", err)
	}
}
