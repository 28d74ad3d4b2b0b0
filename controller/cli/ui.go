package cli

import (
	"context"
	"fmt"
	"net"

	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/live"
	"github.com/kubewire/kubewire/controller/metrics"
	"github.com/kubewire/kubewire/controller/pipeline"
	"github.com/kubewire/kubewire/controller/trace"
)

// ui is the live page of one command (--ui ADDR): the Hub the pipeline's trace
// goes to, and the address it is served on. A nil *ui is no page: its methods
// do nothing, so commands call them unconditionally.
type ui struct {
	hub *live.Hub
	ln  net.Listener
	m   *controller.Manager // whose Pipeline the page shows; set by serve
}

// openUI opens --ui's address before anything else happens, so that an address
// in use or not allowed is a usage error (exit 2) and not a failure halfway
// through. The page is served on exactly that address; one without a host
// (":8080") is loopback (live.Listen, by the rule --metrics-addr follows too:
// metrics.Listen); any other than loopback is warned about, the page having no
// login.
func (s *session) openUI(command string) (*ui, error) {
	addr := s.str("ui")
	if addr == "" {
		if s.boolean("step") {
			return nil, usagef("%s: --step pauses for the page: it needs --ui ADDR", command)
		}
		return nil, nil
	}
	ln, err := live.Listen(addr)
	if err != nil {
		return nil, usagef("%s: %v", command, err)
	}
	u := &ui{ln: ln}
	u.hub = live.New(live.Options{Command: command, Step: s.boolean("step"), Pipeline: func() pipeline.Snapshot {
		return u.m.Pipeline() // the page is served only once m is set (serve)
	}})
	fmt.Fprintf(s.env.Stderr, "ui: the pipeline page is at http://%s/\n", ln.Addr())
	if !metrics.Loopback(ln.Addr()) {
		// The page has no login: on loopback only this machine reaches it.
		drive := ""
		if s.boolean("step") {
			drive = ", and steps it"
		}
		fmt.Fprintf(s.env.Stderr, "ui: warning: %s is beyond loopback and the page has no login: whoever reaches it sees the pipeline's names, counts and errors%s (--ui 127.0.0.1:PORT keeps it to this machine)\n", ln.Addr(), drive)
	}
	s.page = u // s.tracer() now traces to the page too
	return u, nil
}

// trace returns what the pipeline traces to: the page's Hub and, with --trace,
// stderr, each Event printed as its line (session.tracer); nil for neither.
func (u *ui) trace(stderr func(string)) func(trace.Event) {
	switch {
	case u == nil && stderr == nil:
		return nil
	case u == nil:
		return func(e trace.Event) { stderr(e.String()) }
	case stderr == nil:
		return u.hub.Trace
	}
	return func(e trace.Event) {
		stderr(e.String())
		u.hub.Trace(e)
	}
}

// serve shows m's pipeline on the page until ctx ends (started by the command,
// which waits for the returned channel before it returns).
func (u *ui) serve(ctx context.Context, m *controller.Manager) <-chan error {
	done := make(chan error, 1)
	if u == nil {
		done <- nil
		return done
	}
	u.m = m
	go func() { done <- u.hub.Serve(ctx, u.ln) }() // owned by the caller through done
	return done
}

// close releases the page's address and any hop waiting in step mode: Main
// calls it when the command returns, served or not (a command that failed
// before serve would otherwise keep the address).
func (u *ui) close() {
	if u != nil {
		u.hub.Close()
		u.ln.Close() // already closed if it was served: the error says nothing new
	}
}

// finish tells the page the story is over (step mode says so).
func (u *ui) finish() {
	if u != nil {
		u.hub.Finish()
	}
}
