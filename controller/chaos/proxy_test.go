package chaos_test

import (
	"crypto/tls"
	"crypto/x509"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// proxy stands between the pipeline and the API server and breaks what passes:
//
//	client ─TLS─▶ proxy (pki/server.crt) ─TLS─▶ kube-apiserver (verified with pki/ca.crt)
//
// It terminates TLS so that it sees the HTTP/1.1 bytes (it offers no h2 in ALPN, so
// Go's client does not multiplex), which lets it cut a watch stream in the middle of
// an event: on each connection whose last request was a watch it counts events (each
// starts a line with {"type": after the chunk header) and, at a number drawn from a
// seeded source, forwards the first cutInto bytes of that event and closes both
// sides. The client is left holding half a JSON object in half an HTTP chunk.
//
// pause drops every connection and refuses new ones until resume. A proxy is safe
// for concurrent use; close stops it and waits for its goroutines.
type proxy struct {
	ln       net.Listener
	url      string
	upstream string
	inTLS    *tls.Config // what the client sees
	outTLS   *tls.Config // what the apiserver sees

	mu      sync.Mutex
	rand    *rand.Rand // how many events each watch connection gets before its cut
	conns   map[net.Conn]struct{}
	paused  bool
	cutting bool
	lastCut time.Time

	cuts, pauses atomic.Int64

	accepting sync.WaitGroup // the accept loop
	pairs     sync.WaitGroup // two goroutines per proxied connection
}

// cutInto is how far into an event a cut falls: past `{"type":"MODIFIED",` and into
// "object", whatever the type.
const cutInto = 30

// cutMin and cutMax bound the events a watch connection delivers before its cut.
const cutMin, cutMax = 5, 30

var eventStart = []byte("\n{\"type\":")

// startProxy listens on a free loopback port and forwards to upstream (host:port)
// with the certificates of the cluster in dir.
func startProxy(t *testing.T, dir, upstream string, seed uint64) *proxy {
	t.Helper()
	pki := filepath.Join(dir, "pki")
	cert, err := tls.LoadX509KeyPair(filepath.Join(pki, "server.crt"), filepath.Join(pki, "server.key"))
	if err != nil {
		t.Fatalf("no serving certificate in %s: %v", pki, err)
	}
	caPEM, err := os.ReadFile(filepath.Join(pki, "ca.crt"))
	if err != nil {
		t.Fatalf("no CA in %s: %v", pki, err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(caPEM) {
		t.Fatalf("%s/ca.crt holds no certificate", pki)
	}
	host, _, _ := net.SplitHostPort(upstream)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{
		ln: ln, url: "https://" + ln.Addr().String(), upstream: upstream,
		inTLS:  &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"http/1.1"}},
		outTLS: &tls.Config{RootCAs: roots, ServerName: host, NextProtos: []string{"http/1.1"}},
		rand:   rand.New(rand.NewPCG(seed, seed+1)),
		conns:  map[net.Conn]struct{}{},
	}
	p.accepting.Add(1)
	go p.acceptLoop() // owned by the proxy: close ends it and waits
	t.Cleanup(p.close)
	return p
}

func (p *proxy) acceptLoop() {
	defer p.accepting.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return // the listener was closed
		}
		p.mu.Lock()
		if p.paused {
			p.mu.Unlock()
			c.Close()
			continue
		}
		p.pairs.Add(1)
		cutAt := cutMin + p.rand.IntN(cutMax-cutMin+1)
		p.mu.Unlock()
		go p.serve(c, cutAt) // owned by the proxy: close waits for it
	}
}

// serve is one client connection: handshake, dial the apiserver, copy both ways
// until either side ends, then close both.
func (p *proxy) serve(raw net.Conn, cutAt int) {
	defer p.pairs.Done()
	in := tls.Server(raw, p.inTLS)
	if !p.track(in) {
		return
	}
	defer p.untrack(in)
	out, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", p.upstream, p.outTLS)
	if err != nil { // the apiserver is down: the client sees its connection closed
		in.Close()
		return
	}
	if !p.track(out) {
		in.Close()
		return
	}
	defer p.untrack(out)
	var watching atomic.Bool
	done := make(chan struct{})
	go func() { // owned by serve, which waits for it below
		defer close(done)
		p.requests(out, in, &watching)
		in.Close()
		out.Close()
	}()
	p.responses(in, out, &watching, cutAt)
	in.Close()
	out.Close()
	<-done
}

// track registers a connection so that pause and close can close it; it refuses
// (and closes c) when the proxy was paused meanwhile.
func (p *proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.paused {
		c.Close()
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *proxy) untrack(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
}

// requestLine finds the request lines of HTTP/1.1: the client writes each request's
// head in one write, so a line never straddles two reads in practice.
var requestLine = regexp.MustCompile(`(?:GET|POST|PUT|PATCH|DELETE) (\S+) HTTP/1\.1\r\n`)

var watchQuery = regexp.MustCompile(`[?&]watch=(true|1)(&|$)`)

// requests copies client → apiserver and notes whether the latest request on the
// connection is a watch.
func (p *proxy) requests(dst, src net.Conn, watching *atomic.Bool) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if m := requestLine.FindAllSubmatch(buf[:n], -1); m != nil {
				watching.Store(watchQuery.Match(m[len(m)-1][1]))
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// responses copies apiserver → client, and on a watch cuts the stream cutInto bytes
// into event number cutAt.
func (p *proxy) responses(dst, src net.Conn, watching *atomic.Bool, cutAt int) {
	buf := make([]byte, 32<<10)
	matched, events := 0, 0 // bytes of eventStart matched so far; events begun on this connection
	for {
		n, err := src.Read(buf)
		data := buf[:n]
		cut := -1 // where in data to cut, if this read holds the cut
		if n > 0 && watching.Load() && p.isCutting() {
			for i, b := range data {
				switch {
				case b == eventStart[matched]:
					matched++
				case b == eventStart[0]:
					matched = 1
				default:
					matched = 0
				}
				if matched < len(eventStart) {
					continue
				}
				matched = 0
				if events++; events == cutAt {
					cut = i + 1 - len(eventStart) + 1 + cutInto // from the '{', cutInto bytes
					break
				}
			}
		}
		if cut >= 0 && cut <= len(data) {
			_, _ = dst.Write(data[:cut])
			p.noteCut()
			return
		}
		if cut > len(data) { // the event's start is here, the cut point in the next read
			cutAt = events + 1 // cut the next event instead: simpler than carrying offsets
		}
		if n > 0 {
			if _, werr := dst.Write(data); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *proxy) isCutting() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cutting
}

func (p *proxy) noteCut() {
	p.cuts.Add(1)
	p.mu.Lock()
	p.lastCut = time.Now()
	p.mu.Unlock()
}

// setCutting turns the cuts on or off.
func (p *proxy) setCutting(on bool) {
	p.mu.Lock()
	p.cutting = on
	p.mu.Unlock()
}

// lastCutAt is when the last cut happened; the zero time if none did.
func (p *proxy) lastCutAt() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lastCut
}

// pause closes every connection and refuses new ones until resume.
func (p *proxy) pause() {
	p.pauses.Add(1)
	p.mu.Lock()
	p.paused = true
	p.closeAllLocked()
	p.mu.Unlock()
}

func (p *proxy) resume() {
	p.mu.Lock()
	p.paused = false
	p.mu.Unlock()
}

// close stops the proxy: it refuses new connections, closes the open ones, and
// returns once no goroutine of its own is left. Safe to call again.
func (p *proxy) close() {
	p.mu.Lock()
	p.paused = true
	p.closeAllLocked()
	p.mu.Unlock()
	p.ln.Close()
	p.accepting.Wait()
	p.pairs.Wait()
}

func (p *proxy) closeAllLocked() {
	for c := range p.conns {
		c.Close()
	}
}
