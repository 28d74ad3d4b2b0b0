package live

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

// The page belongs to the person who opened it. It has no login (it shows
// names and counts, and runs on a laptop), so what keeps others out is where
// it listens (Listen: loopback unless asked) and what it answers:
//
//   - Host. A request whose Host is not an address the page was opened on is
//     refused (403). This is what stops DNS rebinding: another website the
//     user visits points its own name at 127.0.0.1, and the browser, taking
//     that for the website's origin, would let its script read the page's
//     API. A rebinding needs a name of the attacker's, so the names allowed
//     are few: "localhost" on a loopback or every-interface bind, and this
//     machine's host name on a bind beyond loopback; IP literals are allowed
//     when they are the bound address (any loopback one on a loopback bind,
//     any at all on 0.0.0.0 or ::). The port must be the bound one.
//   - Origin. A request that changes something (POST /api/step; anything but
//     GET and HEAD) must carry the page's own Origin, http://HOST: a form or
//     a text/plain fetch from another website is a "simple" request the
//     browser sends without asking, and the Host check alone lets it through
//     when the user's browser is the one sending it.
//   - Connections. At most maxConns are open at once (the next are closed as
//     they come); an idle keep-alive connection is closed after idleTimeout;
//     an event stream whose reader does not take what is written is dropped
//     after writeTimeout; and with maxPages streams open, the next page
//     replaces the oldest, so streams that never read cannot keep the person
//     who opens the page out.
//
// Nothing the page shows comes from the credential path: errors on it are
// rendered by kubeconfig.*Error's Error, which holds no plugin output, no
// file path and no credential (apiclient/kubeconfig/errors.go).
const (
	maxConns     = 64
	idleTimeout  = 30 * time.Second
	writeTimeout = 10 * time.Second
)

// guard wraps the page's handler with the Host and Origin checks for a page
// listening on addr.
func guard(addr net.Addr, next http.Handler) http.Handler {
	allowed := hostsFor(addr)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !allowed.allow(r.Host) {
			http.Error(w, fmt.Sprintf("host %.100q is not the address this page was opened on (%s): refused", r.Host, addr), http.StatusForbidden)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			if origin := r.Header.Get("Origin"); origin != "http://"+r.Host {
				http.Error(w, fmt.Sprintf("%s needs the page's own Origin (http://%s), not %.100q: refused", r.Method, r.Host, origin), http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// hosts is what a Host header may say for a page listening on one address.
type hosts struct {
	port     string
	ip       net.IP // the bound address
	any      bool   // bound to every interface (0.0.0.0, ::)
	loopback bool   // bound to a loopback address
	names    map[string]bool
}

func hostsFor(addr net.Addr) hosts {
	h := hosts{names: map[string]bool{}}
	tcp, _ := addr.(*net.TCPAddr)
	if tcp == nil {
		return h // not TCP: nothing is allowed
	}
	h.port, h.ip = fmt.Sprint(tcp.Port), tcp.IP
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

// allow reports whether host (a Host header: name or IP, and port) is one
// this page answers to.
func (a hosts) allow(host string) bool {
	name, port, err := net.SplitHostPort(host)
	if err != nil {
		name, port = host, "80" // no port: the browser's default
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

// limitListener closes, as they come, the connections past max open at once:
// the accept loop never waits, and a flood of idle connections costs one
// accept and one close each, not ~35 KB and a goroutine.
type limitListener struct {
	net.Listener
	slots chan struct{} // one per open connection
}

func limit(ln net.Listener, max int) net.Listener {
	return &limitListener{Listener: ln, slots: make(chan struct{}, max)}
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
