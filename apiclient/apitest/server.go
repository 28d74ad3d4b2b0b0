package apitest

import (
	"encoding/pem"
	"net/http"
	"sync"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/kubeconfig"
	"github.com/kubewire/kubewire/apiclient/recording"
)

// Server is a small Kubernetes API server in memory, on a loopback port, over TLS
// (NewServer) or plain HTTP (NewPlainServer; https.go). It
// works two ways, and a test picks one:
//
//   - Replay (replay.go): it answers requests from a recording, exchange by
//     exchange, faults included — LIST pages in order, watch streams line by line
//     with a flush after each, connections closed, cut or stalled where the script
//     says. A request that does not match the script is an error the test reads
//     from Err. This is how the reflector's scenario tests run.
//   - Live (objects.go, watch.go): it keeps objects and serves GET, LIST (with
//     label selectors and paging), WATCH (from a resourceVersion, with streaming
//     lists), POST, PUT, PATCH (merge and strategic-merge as merge) and DELETE,
//     each write getting the next resourceVersion and a watch event. This is what
//     controller tests and the demo command run on.
//
// Until Replay is called the server is live. Build one with NewServer (the zero
// value is not usable) or NewPlainServer, and Close it. A Server is safe for concurrent use; its hooks
// (OnReply) are called from request goroutines.
type Server struct {
	// URL is the server's base URL: https://127.0.0.1:PORT, or http://127.0.0.1:PORT
	// from NewPlainServer.
	URL string
	ts  *front

	// OnReply, when set before the first request, is told when a scripted response
	// has been written up to its end (and, for a stall, when the stall begins).
	// Tests use it to move a fake clock at the moment only time can make progress.
	OnReply func(Reply)

	mu     sync.Mutex
	replay *replayState // nil while live
	live   liveState
}

// NewServer starts a Server; clock times the live watches' timeoutSeconds (nil: the
// real clock).
func NewServer(clock apiclient.Clock) *Server {
	return newServer(clock, startFront, callWebhooks{})
}

// NewPlainServer starts a Server as NewServer does, but speaking plain HTTP on its
// loopback port: Config gives no CA, and the traffic is readable by anyone who can
// read the machine's loopback interface. It calls no webhooks: it stores
// webhook configurations and CRDs that name a conversion webhook as any other
// object, and admits and serves every object as if none were there
// (TestPlainServer_calls_no_webhooks). It does the same as NewServer in every
// other way (replay, live objects).
//
// It is for a program that starts a server for itself and talks to it only from
// the same process, as the kubewire command's demo and rbac workouts do: with
// only this constructor linked, crypto/tls's server half and the calling of
// webhooks stay out of the binary (0.27e6 and 0.06e6 bytes; issue 42). Tests
// use NewServer, which is what a controller meets in a cluster.
func NewPlainServer(clock apiclient.Clock) *Server {
	return newServer(clock, startPlainFront, nil)
}

// newServer starts a Server behind the front start gives.
func newServer(clock apiclient.Clock, start func(http.Handler) *front, webhooks webhookCaller) *Server {
	if clock == nil {
		clock = apiclient.RealClock{}
	}
	s := &Server{}
	s.live.init(clock, nil)
	s.live.caller = webhooks
	s.ts = start(http.HandlerFunc(s.serveHTTP))
	s.URL = s.ts.url
	return s
}

// Close shuts the server down, ending every open watch.
func (s *Server) Close() {
	s.live.close()
	s.mu.Lock()
	if s.replay != nil {
		s.replay.closeOnce.Do(func() { close(s.replay.closed) })
	}
	s.mu.Unlock()
	s.ts.close()
}

// Config returns a kubeconfig.Config for the server: its URL, and its certificate as
// the CA (none from NewPlainServer). There is no authentication.
func (s *Server) Config() *kubeconfig.Config {
	cfg := &kubeconfig.Config{Server: s.URL, Namespace: "default", Source: "apitest"}
	if cert := s.ts.cert; cert != nil {
		cfg.TLS.CAData = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw})
	}
	return cfg
}

// Transport is what reaches the server (from NewServer it speaks TLS with a
// certificate of its own): wrap it to put faults between a client and the server, and give the
// wrapper to Client in Options.Transport.
func (s *Server) Transport() http.RoundTripper { return s.ts.transport }

// Client returns an apiclient.Client for the server, over the test server's
// transport unless opts gives one.
func (s *Server) Client(opts apiclient.Options) (*apiclient.Client, error) {
	if opts.Transport == nil {
		opts.Transport = s.ts.transport
	}
	return apiclient.New(s.Config(), opts)
}

// serveHTTP is the one entry point: the script answers while there is one, the
// live objects otherwise.
func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	rs := s.replay
	s.mu.Unlock()
	if rs != nil {
		s.serveReplay(rs, w, r)
		return
	}
	s.serveLive(w, r)
}

// Reply describes a scripted response the server has just finished writing. A plain
// value; Exchange points into the script and must not be changed.
type Reply struct {
	// Index is the exchange's position in the script (from 0).
	Index    int
	Exchange *recording.Exchange
	// ResourceVersion is metadata.resourceVersion of the last whole line written
	// (the last watch event, or the LIST), "" when none had one. A test waiting for
	// a stall knows the client has caught up when it has seen this version.
	ResourceVersion string
}
