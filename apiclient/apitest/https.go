package apitest

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
)

// front is the Server's listener: an http.Server on a loopback port, speaking
// HTTP/1.1 — over TLS with the fixed certificate below (startFront, what
// httptest.Server.StartTLS gives), or plain (startPlainFront, for
// NewPlainServer). It is written out here because httptest also links package
// flag, its own test certificate and its connection bookkeeping into every
// binary that embeds apitest, the kubewire command's demo among them (issue 42:
// about 0.05e6 bytes).
//
// The two starts are separate functions on purpose: a binary that calls only
// startPlainFront does not link crypto/tls's server half (its handshake, the
// certificate parsing and signing for it; issue 42: 0.27e6 bytes).
//
// A front is built by startFront or startPlainFront and used until close; it is
// safe for concurrent use.
type front struct {
	url       string
	cert      *x509.Certificate // nil when plain
	transport *http.Transport   // trusts cert; what Server.Transport gives
	srv       *http.Server
	served    chan struct{} // closed when srv.Serve has returned

	mu       sync.Mutex
	closed   bool
	handlers sync.WaitGroup // requests being served; added to under mu, while !closed
}

// startFront listens on 127.0.0.1 (any free port) and serves h there over TLS
// until close.
func startFront(h http.Handler) *front {
	pair, err := tls.X509KeyPair([]byte(frontCert), []byte(frontKey))
	if err != nil {
		panic("apitest: the server's certificate: " + err.Error()) // a constant: cannot fail
	}
	cert, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		panic("apitest: the server's certificate: " + err.Error())
	}
	ln := listenLoopback()
	roots := x509.NewCertPool()
	roots.AddCert(cert)
	f := newFront(h, "https://"+ln.Addr().String(), &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}})
	f.cert = cert
	// HTTP/1.1 only, as httptest's TLS server: each watch has its own
	// connection, which a test (or a fault) can cut alone.
	f.srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{pair}, NextProtos: []string{"http/1.1"}}
	f.serve(tls.NewListener(ln, f.srv.TLSConfig))
	return f
}

// startPlainFront listens on 127.0.0.1 (any free port) and serves h there over
// plain HTTP/1.1 until close.
func startPlainFront(h http.Handler) *front {
	ln := listenLoopback()
	// No HTTP/2 either way: plain HTTP/2 is only spoken when asked for (h2c),
	// and the transport does not ask.
	f := newFront(h, "http://"+ln.Addr().String(), &http.Transport{})
	f.serve(ln)
	return f
}

// listenLoopback listens on a free port of 127.0.0.1.
func listenLoopback() net.Listener {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic("apitest: listen on a loopback port: " + err.Error()) // as httptest does: a test cannot go on
	}
	return ln
}

// newFront is a front at url not yet serving, whose requests go to h.
func newFront(h http.Handler, url string, transport *http.Transport) *front {
	f := &front{url: url, transport: transport, served: make(chan struct{})}
	f.srv = &http.Server{
		Handler: f.count(h),
		// Connections still being set up when the server closes log an error
		// (a TLS handshake's); in the demo that would be a stray line on the
		// user's terminal.
		ErrorLog: log.New(io.Discard, "", 0),
	}
	return f
}

// serve serves f's requests from ln, in a goroutine of its own that returns at
// close.
func (f *front) serve(ln net.Listener) {
	go func() {
		defer close(f.served)
		f.srv.Serve(ln)
	}()
}

// count keeps the number of requests being served, so that close can wait for
// them; a request that arrives after close began is refused.
func (f *front) count(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		if f.closed {
			f.mu.Unlock()
			http.Error(w, "the server is closing", http.StatusServiceUnavailable)
			return
		}
		f.handlers.Add(1)
		f.mu.Unlock()
		defer f.handlers.Done()
		h.ServeHTTP(w, r)
	})
}

// close closes the listener and every connection, idle or not, then waits until
// every request being served has returned and the server has stopped.
func (f *front) close() {
	f.mu.Lock()
	f.closed = true
	f.mu.Unlock()
	f.srv.Close()
	f.handlers.Wait()
	<-f.served
	f.transport.CloseIdleConnections()
}

// frontCert and frontKey are the server's self-signed certificate (ECDSA P-256,
// for 127.0.0.1, ::1 and localhost, valid 2000–2100) and its key, made once for
// apitest: a test server's key is no secret.
const (
	frontCert = `-----BEGIN CERTIFICATE-----
MIIBrzCCAVSgAwIBAgIBKjAKBggqhkjOPQQDAjAbMRkwFwYDVQQKExBrdWJld2ly
ZSBhcGl0ZXN0MCAXDTAwMDEwMTAwMDAwMFoYDzIxMDAwMTAxMDAwMDAwWjAbMRkw
FwYDVQQKExBrdWJld2lyZSBhcGl0ZXN0MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcD
QgAECVQlUUokmvSP9DMoydlEAaGWSxf9gV+Ddml2isM2DXLgcy7YrqxlqkA4IWUF
ZGloAla4BRDWRtjnnjSOcUDTQKOBhjCBgzAOBgNVHQ8BAf8EBAMCAoQwEwYDVR0l
BAwwCgYIKwYBBQUHAwEwDwYDVR0TAQH/BAUwAwEB/zAdBgNVHQ4EFgQU+eo+53I6
L7Qr3mSgLZs50gH8H+wwLAYDVR0RBCUwI4IJbG9jYWxob3N0hwR/AAABhxAAAAAA
AAAAAAAAAAAAAAABMAoGCCqGSM49BAMCA0kAMEYCIQC21mpqkKlqZ7A/498FRrYf
A/KunQjUzeoADZZYYNgOBAIhANh2k5pjLyulJHEkvm9eBkgoE5u6EKVYY9YNZvXO
KkL0
-----END CERTIFICATE-----
`
	frontKey = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgDz8x12HqDcPHMUft
5iHsl1OaDDcNuVzriPoTCG/ayNahRANCAAQJVCVRSiSa9I/0MyjJ2UQBoZZLF/2B
X4N2aXaKwzYNcuBzLtiurGWqQDghZQVkaWgCVrgFENZG2OeeNI5xQNNA
-----END PRIVATE KEY-----
`
)
