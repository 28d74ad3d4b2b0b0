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
	// ReadyDetail makes /readyz say why it is not ready, and the role it
	// plays, on an address beyond loopback too (kubewire run
	// --readyz-detail). Off, such a server answers "ok" or "not ready" and
	// no more: what ReadyFunc says names namespaces, selectors, shard
	// ranges and the identities of other replicas, and beyond loopback the
	// server answers any Host (a scrape comes by a Service's name), so a
	// website that rebinds its DNS name to the address could read it. On
	// loopback, where a foreign Host is refused, /readyz always says it.
	ReadyDetail bool
	// Limits bound what a client can hold of the server; zero fields are
	// DefaultLimits'.
	Limits Limits
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
// that asked for port 0 use it to know the address before serving. On a
// loopback address it answers only the Hosts HostsFor allows (403 for
// others); beyond loopback it answers any Host, and /readyz keeps its detail
// unless ReadyDetail (see there). Limits bound every connection.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	ready, addr := s.Ready, ln.Addr()
	if !Loopback(addr) && !s.ReadyDetail {
		ready = withhold(ready)
	}
	h := Handler(s.Registry, ready)
	if Loopback(addr) {
		h = HostsFor(addr).Guard(h) // beyond loopback, a scrape's Host cannot be known
	}
	// A client that opens a connection and never finishes its request, or
	// keeps one open and idle, would otherwise hold a goroutine (and ~35 KB)
	// for as long as it likes; a scraper comes back every few seconds.
	srv, ln := s.Limits.Server(h, ln)
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

// withhold is ready without its detail: the role and the reason are left
// out, whether the process is ready is not.
func withhold(ready ReadyFunc) ReadyFunc {
	if ready == nil {
		return nil
	}
	return func() (string, error) {
		if _, err := ready(); err != nil {
			return "", errWithheld
		}
		return "", nil
	}
}

var errWithheld = errors.New("the reason is withheld beyond loopback (--readyz-detail, Server.ReadyDetail, shows it)")
