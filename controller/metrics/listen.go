package metrics

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

// Every HTTP server of a kubewire process — this package's Server
// (--metrics-addr) and the live page (controller/live, --ui) — follows the
// rules of this file, stated once:
//
//   - Where it listens (Listen): loopback unless another address is asked
//     for.
//   - Which Host it answers (HostsFor): bound to loopback, only its own
//     address, another loopback one, or "localhost", on its port. This is
//     what stops DNS rebinding: a website the user visits points its own
//     name at 127.0.0.1, and the browser, taking the server for the
//     website's, lets the website's script read what the server answers. A
//     rebinding needs a name of the attacker's, so refusing names the server
//     does not know refuses it.
//   - How long a client may hold it (Limits): a request's headers, the whole
//     request with its body, a response, an idle keep-alive connection each
//     have a bound, and so does the number of connections open at once, so
//     that clients that send slowly, or never, cannot keep others out.

// Listen opens addr by the one rule kubewire's HTTP servers follow, this one
// (--metrics-addr) and the live page (--ui) alike: an address without a host
// (":8080") is loopback, 127.0.0.1, so that nothing is served to the network
// unless asked for; to serve on every interface, say so ("0.0.0.0:8080",
// "[::]:8080"), as a Pod whose Prometheus and kubelet probes come from
// outside must; a named host or address is that one.
//
// controller-runtime's metrics server takes ":8080" as every interface, as
// net.Listen does; kubewire chose loopback because the same rule also opens
// the live page, which must not reach the network by accident, and one rule
// for both is one less surprise.
func Listen(addr string) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.Listen("tcp", net.JoinHostPort(host, port))
}

// Loopback reports whether addr (a listener's) is on a loopback interface
// alone: 127.0.0.0/8 or ::1. 0.0.0.0 and :: are every interface, not loopback.
func Loopback(addr net.Addr) bool {
	tcp, ok := addr.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}

// Hosts is what a Host header may say for a server listening on one address
// (HostsFor). The zero value allows nothing; it is safe for concurrent use.
type Hosts struct {
	addr     string // the bound address, for the refusal
	port     string
	ip       net.IP // the bound address
	any      bool   // bound to every interface (0.0.0.0, ::)
	loopback bool   // bound to a loopback address
	names    map[string]bool
}

// HostsFor is the Host rule of a server listening on addr. The port must be
// addr's. The names allowed are few: "localhost" on a loopback or
// every-interface bind, and this machine's host name on a bind beyond
// loopback. IP literals are allowed when they are the bound address: any
// loopback one on a loopback bind, any at all on 0.0.0.0 or ::. A listener
// that is not TCP allows nothing.
//
// The live page applies it wherever it listens (the page is for a person,
// who opens it by one of these names); Server applies it on loopback only,
// since beyond loopback a scrape comes by names the process cannot know (a
// Service's).
func HostsFor(addr net.Addr) Hosts {
	h := Hosts{names: map[string]bool{}}
	tcp, _ := addr.(*net.TCPAddr)
	if tcp == nil {
		return h // not TCP: nothing is allowed
	}
	h.addr, h.port, h.ip = tcp.String(), fmt.Sprint(tcp.Port), tcp.IP
	h.any, h.loopback = tcp.IP.IsUnspecified(), tcp.IP.IsLoopback()
	if h.any || h.loopback {
		h.names["localhost"] = true
	}
	if !h.loopback {
		if name, err := os.Hostname(); err == nil && name != "" {
			h.names[strings.ToLower(name)] = true
		}
	}
	return h
}

// Allow reports whether host (a Host header: name or IP, and port) is one
// the server answers to. A Host without a port names port 80, the browser's
// default.
func (a Hosts) Allow(host string) bool {
	name, port, err := net.SplitHostPort(host)
	if err != nil {
		name, port = host, "80"
	}
	if port != a.port {
		return false
	}
	name = strings.TrimSuffix(strings.ToLower(name), ".")
	if ip := net.ParseIP(name); ip != nil {
		return a.any || a.loopback && ip.IsLoopback() || ip.Equal(a.ip)
	}
	return a.names[name]
}

// Guard wraps next so that a request whose Host a does not allow is refused
// with 403, before next sees it.
func (a Hosts) Guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !a.Allow(r.Host) {
			// %q: the Host is the client's text, and may be a terminal's
			// escape sequence.
			http.Error(w, fmt.Sprintf("host %.100q is not an address this server listens on (%s): refused", r.Host, a.addr), http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Limits bound what a client can hold of a server: how long each part of an
// exchange may take, and how many connections may be open at once. A zero
// field is DefaultLimits'.
type Limits struct {
	// ReadHeader is how long a request's headers may take to arrive.
	ReadHeader time.Duration
	// Read is how long the whole request, its body included, may take:
	// kubewire's servers take no bodies, and a request that declares one and
	// never sends it would otherwise hold its connection for as long as the
	// client likes (net/http waits for a body the handler did not read, to
	// keep the connection).
	Read time.Duration
	// Write is how long a response may take to be written. A stream that
	// stays open (the live page's events) sets its own deadline before each
	// write, with http.ResponseController, and clears the read deadline,
	// which would otherwise end it.
	Write time.Duration
	// Idle is how long a keep-alive connection may wait for its next request.
	Idle time.Duration
	// Conns is how many connections may be open at once; the next are closed
	// as they come, unanswered.
	Conns int
}

// DefaultLimits are every server's bounds, unless told others: a probe, a
// scrape and a page's requests take milliseconds, so 10 s for any part is
// generous, and 64 connections are more than a person's browser, a scraper
// and a kubelet open together.
var DefaultLimits = Limits{ReadHeader: 10 * time.Second, Read: 10 * time.Second, Write: 10 * time.Second, Idle: 30 * time.Second, Conns: 64}

// Server returns the http.Server that serves h under l, and ln bounded to
// l.Conns connections open at once: the caller serves the one on the other
// (srv.Serve(bounded)).
func (l Limits) Server(h http.Handler, ln net.Listener) (srv *http.Server, bounded net.Listener) {
	l = l.orDefault()
	srv = &http.Server{Handler: h, ReadHeaderTimeout: l.ReadHeader, ReadTimeout: l.Read, WriteTimeout: l.Write, IdleTimeout: l.Idle}
	return srv, &limitListener{Listener: ln, slots: make(chan struct{}, l.Conns)}
}

// orDefault is l with DefaultLimits' values where l has none.
func (l Limits) orDefault() Limits {
	d := DefaultLimits
	pick := func(v, def time.Duration) time.Duration {
		if v > 0 {
			return v
		}
		return def
	}
	l.ReadHeader, l.Read, l.Write, l.Idle = pick(l.ReadHeader, d.ReadHeader), pick(l.Read, d.Read), pick(l.Write, d.Write), pick(l.Idle, d.Idle)
	if l.Conns <= 0 {
		l.Conns = d.Conns
	}
	return l
}

// limitListener closes, as they come, the connections past its slots: the
// accept loop never waits, and a flood of idle connections costs one accept
// and one close each, not ~35 KB and a goroutine.
type limitListener struct {
	net.Listener
	slots chan struct{} // one per open connection
}

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		select {
		case l.slots <- struct{}{}:
			return &limitedConn{Conn: c, release: func() { <-l.slots }}, nil
		default:
			c.Close()
		}
	}
}

// limitedConn gives its slot back when closed, once.
type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
