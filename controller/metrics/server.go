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
// default metrics port, on every interface, so a Prometheus in the cluster reaches it.
const DefaultAddr = ":8080"

// Server is the process's one HTTP listener for /healthz, /readyz and /metrics
// (see Handler).
//
// The zero value serves an empty registry on DefaultAddr, always ready. Set the
// fields before Run; a Server runs once at a time. Its handler is safe for
// concurrent use.
type Server struct {
	// Addr is the listen address, "host:port"; ":0" picks a free port (use Serve
	// with your own listener to learn which).
	Addr string
	// Registry is what /metrics renders.
	Registry *Registry
	// Ready answers /readyz; nil is always ready.
	Ready ReadyFunc
	// ShutdownTimeout bounds how long Run waits, once ctx is done, for requests in
	// flight to finish before closing their connections. Default 5 s.
	ShutdownTimeout time.Duration
}

// Run listens on Addr and serves until ctx is done, then shuts down: it stops
// accepting, lets requests in flight finish (for at most ShutdownTimeout) and
// returns nil. It returns an error at once when it cannot listen (the port is
// taken), or if the server fails.
func (s *Server) Run(ctx context.Context) error {
	addr := s.Addr
	if addr == "" {
		addr = DefaultAddr
	}
	ln, err := net.Listen("tcp", addr)
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
		// A client that opens a connection and never finishes its headers would
		// otherwise hold a goroutine forever.
		ReadHeaderTimeout: 10 * time.Second,
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
