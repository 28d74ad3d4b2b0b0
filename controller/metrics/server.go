package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// DefaultAddr is where Server listens when Addr is empty: controller-runtime's
// default metrics port, on loopback (Listen's rule).
const DefaultAddr = ":8080"

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

// Server is the process's one HTTP listener for /healthz, /readyz and /metrics
// (see Handler).
//
// The zero value serves an empty registry on DefaultAddr, always ready. Set the
// fields before Run; a Server runs once at a time. Its handler is safe for
// concurrent use.
type Server struct {
	// Addr is the listen address, "host:port", opened by Listen (":8080" is
	// loopback, "0.0.0.0:8080" every interface); ":0" picks a free port (use
	// Serve with your own listener, from Listen, to learn which).
	Addr string
	// Registry is what /metrics renders.
	Registry *Registry
	// Ready answers /readyz; nil is always ready.
	Ready ReadyFunc
	// ShutdownTimeout bounds how long Run waits, once ctx is done, for requests in
	// flight to finish before closing their connections. Default 5 s.
	ShutdownTimeout time.Duration
}

// Run listens on Addr (by Listen's rule: ":8080" is loopback) and serves until ctx is done, then shuts down: it stops
// accepting, lets requests in flight finish (for at most ShutdownTimeout) and
// returns nil. It returns an error at once when it cannot listen (the port is
// taken), or if the server fails.
func (s *Server) Run(ctx context.Context) error {
	addr := s.Addr
	if addr == "" {
		addr = DefaultAddr
	}
	ln, err := Listen(addr)
	if err != nil {
		return fmt.Errorf("metrics server: %w", err)
	}
	return s.Serve(ctx, ln)
}

// Serve is Run on a listener of the caller's, which it closes. Tests and callers
// that asked for port 0 use it to know the address before serving.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler: Handler(s.Registry, s.Ready),
		// A client that opens a connection and never finishes its headers, or
		// keeps one open and idle, would otherwise hold a goroutine (and ~35 KB)
		// forever; a scraper comes back every few seconds.
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       time.Minute,
	}
	// The goroutine below is owned by Serve: it ends when srv.Serve returns, which
	// Shutdown (or a listener failure) causes, and Serve waits for it either way.
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	select {
	case err := <-served:
		return fmt.Errorf("metrics server: %w", err)
	case <-ctx.Done():
	}
	timeout := s.ShutdownTimeout
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	// ctx is already done, so the shutdown needs a context of its own.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	defer cancel()
	err := srv.Shutdown(sctx)
	if serr := <-served; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	if err != nil {
		_ = srv.Close() // requests still running after the timeout: cut them off
		return fmt.Errorf("metrics server shutdown: %w", err)
	}
	return nil
}
