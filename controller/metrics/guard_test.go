package metrics_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubewire/kubewire/controller/metrics"
)

// pipes is a listener of in-memory connections (net.Pipe) that says it is
// bound to addr: a test runs the real http.Server on it, inside a synctest
// bubble when its timeouts are what is tested (they then run on the bubble's
// clock), and as if bound to any address, loopback or not.
type pipes struct {
	addr   *net.TCPAddr
	conns  chan net.Conn
	closed chan struct{}
}

// servePipes serves srv on pipes bound to addr until the test ends, and
// returns how to open a connection to it.
func servePipes(t *testing.T, srv *metrics.Server, addr string) func() net.Conn {
	t.Helper()
	tcp, err := net.ResolveTCPAddr("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	ln := &pipes{addr: tcp, conns: make(chan net.Conn), closed: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return func() net.Conn {
		client, server := net.Pipe()
		ln.conns <- server
		return client
	}
}

func (l *pipes) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *pipes) Close() error {
	select {
	case <-l.closed:
	default:
		close(l.closed)
	}
	return nil
}

func (l *pipes) Addr() net.Addr { return l.addr }

// ask sends one GET on a new connection, with the Host header host, and
// returns the status code and the body.
func ask(t *testing.T, dial func() net.Conn, path, host string) (int, string) {
	t.Helper()
	c := dial()
	defer c.Close()
	go fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", path, host) // a pipe writes only as it is read
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("GET %s with Host %q: %v", path, host, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("GET %s with Host %q: %v", path, host, err)
	}
	return res.StatusCode, string(body)
}

// Issue 39: a request that declared a body and never sent it held its
// connection for as long as the client liked (the server had a header
// timeout, not a read timeout): enough of them, and nobody else is served.
// The whole request now has Limits.Read to arrive; then the connection is
// closed. (Before, this test's bubble deadlocked: nothing would ever close it.)
func TestServer_drops_a_request_whose_body_never_comes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dial := servePipes(t, &metrics.Server{}, "127.0.0.1:8080")
		c := dial()
		defer c.Close()
		start := time.Now()
		_ = c.SetDeadline(start.Add(time.Minute)) // a watchdog, on the bubble's clock
		go fmt.Fprint(c, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Length: 10\r\n\r\n")
		if _, err := io.Copy(io.Discard, c); err != nil && !errors.Is(err, io.ErrClosedPipe) {
			t.Fatalf("reading the connection: %v, want it closed", err)
		}
		if got, want := time.Since(start), metrics.DefaultLimits.Read; got != want {
			t.Fatalf("closed after %v, want %v (Limits.Read)", got, want)
		}
	})
}

// Issue 39, DNS rebinding: /metrics and /readyz answered any Host, so a
// website that points its own name at 127.0.0.1 could read, from the user's
// browser, the namespaces, selectors, shard ranges and identities they name.
// Bound to loopback, the server answers only the Host rule of the live page
// (metrics.HostsFor, Hosts.Allow): its own address, a loopback one, or localhost, on its
// port.
func TestServer_on_loopback_refuses_a_foreign_Host(t *testing.T) {
	dial := servePipes(t, &metrics.Server{Ready: readyAs("shard r1: serving 0-7fff", nil)}, "127.0.0.1:8080")
	for host, want := range map[string]int{
		"127.0.0.1:8080":        200,
		"localhost:8080":        200,
		"[::1]:8080":            200,
		"evil.example:8080":     403,
		"127.0.0.1.nip.io:8080": 403,
		"localhost:9090":        403,
		"10.0.0.7:8080":         403,
	} {
		for _, path := range []string{"/metrics", "/readyz", "/healthz"} {
			code, body := ask(t, dial, path, host)
			if code != want {
				t.Errorf("GET %s with Host %q: %d, want %d", path, host, code, want)
			}
			if code != 200 && strings.Contains(body, "r1") {
				t.Errorf("GET %s with Host %q: refused, but the body tells %q", path, host, body)
			}
		}
	}
}

// Beyond loopback (a Pod's Prometheus scrape comes by pod IP or by a Service's
// name, which the process cannot know), any Host is answered; what a stranger
// could learn there is kept from /readyz unless ReadyDetail asks for it: the
// body says ok or not ready, and not why.
func TestServer_beyond_loopback_answers_any_Host_and_withholds_readyz_detail(t *testing.T) {
	reg := new(metrics.Registry)
	reg.Counter("up_total", "Up.").Inc()
	why := "shard r1: waiting for member \"r2\" (Lease ops/g-shard-r2) to release 0-7fff"
	for _, bind := range []string{"10.1.2.3:8080", "0.0.0.0:8080", "[::]:8080"} {
		ready := servePipes(t, &metrics.Server{Registry: reg, Ready: readyAs("shard r1: serving 0-7fff", nil)}, bind)
		unready := servePipes(t, &metrics.Server{Ready: readyAs("", errors.New(why))}, bind)
		detailed := servePipes(t, &metrics.Server{Ready: readyAs("", errors.New(why)), ReadyDetail: true}, bind)
		for _, host := range []string{"10.1.2.3:8080", "kubewire-metrics.ops.svc:8080", "evil.example"} {
			if code, body := ask(t, ready, "/metrics", host); code != 200 || !strings.Contains(body, "up_total 1") {
				t.Errorf("bound to %s, /metrics with Host %q: %d %q, want 200 and the page", bind, host, code, body)
			}
			if code, body := ask(t, ready, "/readyz", host); code != 200 || body != "ok" {
				t.Errorf("bound to %s, ready /readyz with Host %q: %d %q, want 200 \"ok\" and no detail", bind, host, code, body)
			}
			if code, body := ask(t, unready, "/readyz", host); code != 503 || strings.Contains(body, "r2") {
				t.Errorf("bound to %s, unready /readyz with Host %q: %d %q, want 503 and not why", bind, host, code, body)
			}
			if code, body := ask(t, detailed, "/readyz", host); code != 503 || body != "not ready: "+why {
				t.Errorf("bound to %s with ReadyDetail, unready /readyz with Host %q: %d %q, want 503 and why", bind, host, code, body)
			}
		}
	}
}

// FuzzHostsAllow: whatever a Host header says, a server bound to
// 127.0.0.1:8080 answers it only when it names port 8080 and a loopback
// address or "localhost", never a panic.
func FuzzHostsAllow(f *testing.F) {
	for _, s := range []string{"127.0.0.1:8080", "localhost:8080", "LOCALHOST.:8080", "[::1]:8080", "evil.example:8080", "127.0.0.1.nip.io:8080", "127.0.0.1", "[::1", ":8080", ""} {
		f.Add(s)
	}
	allowed := metrics.HostsFor(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080})
	f.Fuzz(func(t *testing.T, host string) {
		if !allowed.Allow(host) {
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
