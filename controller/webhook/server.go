package webhook

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"strconv"
	"sync"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/metrics"
)

// Server is the HTTPS server of a process's webhooks: admission (Validate,
// Default) and conversion (Convert). Build it with New (on a Manager, which
// runs it) or NewServer (to run it yourself), register every webhook, then
// Run. The zero value is not usable; it is safe for concurrent use once
// running, and webhooks must be registered before Run.
type Server struct {
	client *apiclient.Client
	opts   Options
	log    *slog.Logger

	mu          sync.Mutex
	admissions  []admission
	conversions []conversion
	mux         *http.ServeMux
	running     bool
	ready       error  // nil once serving with the configurations applied
	caBundle    []byte // the CA the configurations name, once known
	url         string // where the API server reaches this server by URL, once known
	slots       chan struct{}
	started     chan struct{} // closed once serving (Started)
}

// Options say where the server listens, how the API server reaches it, and
// where its certificate comes from. The zero value listens on loopback
// :9443, is reached at https://127.0.0.1:9443, and keeps a certificate
// authority it makes in the Secret "kubewire-webhooks-tls" of namespace
// "default".
type Options struct {
	// Name names the webhook configurations and, with "-tls", the
	// certificate's Secret: "kubewire-webhooks" when "". Two operators on one
	// cluster need two names.
	Name string
	// Addr is where to listen, by metrics.Listen's rule: ":9443" is
	// loopback; in a Pod, which the API server reaches from outside, say
	// "0.0.0.0:9443". ":9443" when "".
	Addr string
	// Service is how the API server reaches the server in a cluster: the
	// configurations and the CRDs' conversion name it. Without it they name
	// URL.
	Service *Service
	// URL is the base URL the API server reaches the server at, when there
	// is no Service: "https://127.0.0.1:PORT" for a server on loopback (the
	// port the listener got, for ":0") when "".
	URL string
	// Hosts are the names and IP addresses the serving certificate is made
	// for: the Service's DNS names, or URL's host, when empty.
	Hosts []string
	// SecretNamespace is where the certificate's Secret is kept: the
	// Service's namespace, else "default", when "".
	SecretNamespace string
	// CertFile, KeyFile and CAFile, when CertFile is set, are a certificate
	// made elsewhere (cert-manager, a mounted Secret): read again whenever
	// their modification time changes; CAFile (PEM) is the caBundle. No
	// Secret is kept then.
	CertFile, KeyFile, CAFile string
	// NoInstall leaves the webhook configurations and the CRDs' conversion
	// to someone else (Manifests, applied by kubectl): the server only
	// serves.
	NoInstall bool
	// FieldManager applies the configurations: "kubewire-webhooks" when "".
	FieldManager string
	// Limits bound each connection (metrics.Limits, the rule of every
	// kubewire server); Write is raised to 35 s, above the 30 s a review may
	// take.
	Limits metrics.Limits
	// MaxBodyBytes bounds a review's body: 3 MiB when 0, kube-apiserver's
	// own limit on a request, so anything it can store fits.
	MaxBodyBytes int64
	// MaxReviews bounds the reviews answered at once; the next get 429
	// Too Many Requests (the API server then applies the failurePolicy). 32
	// when 0.
	MaxReviews int
	// Log receives what the server logs: slog.Default() when nil (New: the
	// Manager's).
	Log *slog.Logger
}

// Service names the Service in front of the webhook server's Pods.
type Service struct {
	Namespace, Name string
	Port            int32 // 443 when 0
}

// The bounds Options leave at 0.
const (
	DefaultMaxBodyBytes = 3 << 20
	DefaultMaxReviews   = 32
	maxReviewTime       = 30 * time.Second // the longest timeoutSeconds the API allows
)

// New builds a Server that m runs, on every replica, whether it leads or
// not (an admission webhook must answer wherever the API server sends it;
// Manager.AddRunner), and whose readiness is part of m's /readyz
// (Manager.AddReadyCheck "webhooks"). It uses m's client and logger.
func New(m *controller.Manager, opts Options) *Server {
	if opts.Log == nil {
		opts.Log = m.Log()
	}
	s := NewServer(m.Client(), opts)
	m.AddRunner("webhook server", s)
	m.AddReadyCheck("webhooks", s.Ready)
	return s
}

// NewServer builds a Server on client, which keeps its Secret and applies its
// configurations; Run runs it.
func NewServer(client *apiclient.Client, opts Options) *Server {
	if opts.Name == "" {
		opts.Name = "kubewire-webhooks"
	}
	if opts.Addr == "" {
		opts.Addr = ":9443"
	}
	if opts.SecretNamespace == "" {
		opts.SecretNamespace = "default"
		if opts.Service != nil {
			opts.SecretNamespace = opts.Service.Namespace
		}
	}
	if opts.FieldManager == "" {
		opts.FieldManager = "kubewire-webhooks"
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.MaxReviews <= 0 {
		opts.MaxReviews = DefaultMaxReviews
	}
	opts.Limits.Write = max(opts.Limits.Write, maxReviewTime+5*time.Second)
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	s := &Server{client: client, opts: opts, log: opts.Log, mux: http.NewServeMux(),
		ready: errors.New("not serving yet"), slots: make(chan struct{}, opts.MaxReviews), started: make(chan struct{})}
	s.mux.HandleFunc("/readyz", s.serveReady)
	return s
}

// addAdmission and addConversion register a webhook's path.
func (s *Server) addAdmission(a admission) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mustNotRun()
	s.admissions = append(s.admissions, a)
	s.mux.HandleFunc(a.path, func(w http.ResponseWriter, r *http.Request) { s.serveAdmission(w, r, a) })
}

func (s *Server) addConversion(c conversion) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mustNotRun()
	s.conversions = append(s.conversions, c)
	s.mux.HandleFunc(c.path, func(w http.ResponseWriter, r *http.Request) { s.serveConversion(w, r, c) })
}

func (s *Server) mustNotRun() {
	if s.running {
		panic("webhook: a webhook registered after the Server started: register every webhook before Run")
	}
}

// Run serves until ctx ends: it listens, gets its certificate (from files,
// or from the Secret, made if missing), applies the webhook configurations
// and the CRDs' conversion (unless NoInstall), then answers reviews. It
// returns nil when ctx ends, an error when it cannot start.
func (s *Server) Run(ctx context.Context) error {
	s.mu.Lock()
	if s.running {
		s.mu.Unlock()
		return errors.New("webhook: Server.Run called twice")
	}
	s.running = true
	s.mu.Unlock()

	ln, err := metrics.Listen(s.opts.Addr)
	if err != nil {
		return fmt.Errorf("webhook server: %w", err)
	}
	defer ln.Close()
	url := s.opts.URL
	if url == "" && s.opts.Service == nil {
		_, port, _ := net.SplitHostPort(ln.Addr().String())
		url = "https://" + net.JoinHostPort("127.0.0.1", port)
	}
	certs, err := s.certificates(ctx, url)
	if err != nil {
		return fmt.Errorf("webhook server: %w", err)
	}
	s.mu.Lock()
	s.url, s.caBundle = url, certs.caBundle
	s.mu.Unlock()

	srv, bounded := s.opts.Limits.Server(s.mux, ln)
	srv.TLSConfig = &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: certs.get}
	srv.ErrorLog = slog.NewLogLogger(s.log.Handler(), slog.LevelDebug) // a client's broken handshake is its own business
	served := make(chan error, 1)
	go func() { served <- srv.ServeTLS(bounded, "", "") }()

	if !s.opts.NoInstall {
		if err := s.install(ctx); err != nil {
			srv.Close()
			<-served
			return fmt.Errorf("webhook server: %w", err)
		}
	}
	s.setReady(nil)
	close(s.started)
	s.log.Info("webhook server serving", "addr", ln.Addr().String(), "url", url, "service", s.opts.Service)
	select {
	case err := <-served:
		s.setReady(errors.New("stopped"))
		return fmt.Errorf("webhook server: %w", err)
	case <-ctx.Done():
	}
	s.setReady(errors.New("stopping"))
	// Reviews in flight get their answer; a new one finds the port closed,
	// and the API server applies its failurePolicy.
	shut, cancel := context.WithTimeout(context.Background(), maxReviewTime)
	defer cancel()
	srv.Shutdown(shut)
	<-served
	return nil
}

// ServeHTTP answers one request as the running server does (the reviews,
// /readyz), with its bounds on the body and on reviews at once; the
// connection bounds are Run's. It lets a test, or a server of your own,
// call the webhooks without TLS.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// Ready says whether the server serves, its configurations applied: what
// its /readyz and, with New, the Manager's /readyz answer.
func (s *Server) Ready() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ready
}

// Started is closed once the server serves, its configurations applied.
func (s *Server) Started() <-chan struct{} { return s.started }

// URL is the base URL the API server reaches the server at when there is no
// Service: Options.URL, or the listener's, known once Run has listened.
func (s *Server) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.url
}

// CABundle is the CA (PEM) that trusts the serving certificate, once Run
// has it.
func (s *Server) CABundle() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caBundle
}

func (s *Server) setReady(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ready = err
}

// serveReady is /readyz, for a probe of the webhook server alone.
func (s *Server) serveReady(w http.ResponseWriter, _ *http.Request) {
	if err := s.Ready(); err != nil {
		http.Error(w, "webhooks: "+err.Error(), http.StatusServiceUnavailable)
		return
	}
	io.WriteString(w, "ok\n")
}

// serveAdmission answers one AdmissionReview for a: a review always, where
// the request carried a uid to answer; a plain 4xx or 5xx where it did not.
func (s *Server) serveAdmission(w http.ResponseWriter, r *http.Request, a admission) {
	body, ok := s.admit(w, r)
	if !ok {
		return
	}
	var review AdmissionReview
	if err := json.Unmarshal(body, &review); err != nil {
		s.release()
		http.Error(w, fmt.Sprintf("the body is not an AdmissionReview: %.200v", err), http.StatusBadRequest)
		return
	}
	if review.APIVersion != "admission.k8s.io/v1" || review.Kind != "AdmissionReview" || review.Request == nil || review.Request.UID == "" {
		s.release()
		http.Error(w, fmt.Sprintf("want an admission.k8s.io/v1 AdmissionReview with a request and its uid; got apiVersion %.100q kind %.100q", review.APIVersion, review.Kind), http.StatusBadRequest)
		return
	}
	req := review.Request
	limit := time.Duration(a.hook.TimeoutSeconds) * time.Second
	resp, ok := bounded(r.Context(), s, reviewTime(r, limit), func(ctx context.Context) *AdmissionResponse { return a.review(ctx, req) })
	if !ok {
		resp = refused(http.StatusInternalServerError, "InternalError", fmt.Sprintf("webhook %s failed; see its log", a.hook.Name))
	}
	if resp == nil {
		resp = refused(http.StatusGatewayTimeout, "Timeout", fmt.Sprintf("webhook %s did not decide within %v", a.hook.Name, reviewTime(r, limit)))
	}
	resp.UID = req.UID
	writeJSON(w, AdmissionReview{TypeMeta: review.TypeMeta, Response: resp})
}

// serveConversion answers one ConversionReview for c.
func (s *Server) serveConversion(w http.ResponseWriter, r *http.Request, c conversion) {
	body, ok := s.admit(w, r)
	if !ok {
		return
	}
	var review ConversionReview
	if err := json.Unmarshal(body, &review); err != nil {
		s.release()
		http.Error(w, fmt.Sprintf("the body is not a ConversionReview: %.200v", err), http.StatusBadRequest)
		return
	}
	if review.APIVersion != "apiextensions.k8s.io/v1" || review.Kind != "ConversionReview" || review.Request == nil || review.Request.UID == "" {
		s.release()
		http.Error(w, fmt.Sprintf("want an apiextensions.k8s.io/v1 ConversionReview with a request and its uid; got apiVersion %.100q kind %.100q", review.APIVersion, review.Kind), http.StatusBadRequest)
		return
	}
	req := review.Request
	resp, ok := bounded(r.Context(), s, reviewTime(r, maxReviewTime), func(context.Context) *ConversionResponse { return c.review(req) })
	if !ok || resp == nil {
		resp = &ConversionResponse{UID: req.UID, Result: apiclient.Status{Status: "Failure", Message: fmt.Sprintf("conversion of %s failed or took too long; see the webhook's log", c.crd.Name)}}
	}
	writeJSON(w, ConversionReview{TypeMeta: review.TypeMeta, Response: resp})
}

// admit takes a review's slot and reads its body, bounded; when it cannot,
// it has answered, and ok is false. A caller that got ok holds the slot: it
// hands it to bounded, or calls release.
func (s *Server) admit(w http.ResponseWriter, r *http.Request) (body []byte, ok bool) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "a review is POSTed", http.StatusMethodNotAllowed)
		return nil, false
	}
	select {
	case s.slots <- struct{}{}:
	default:
		w.Header().Set("Retry-After", "1")
		http.Error(w, fmt.Sprintf("%d reviews are being answered; try again", cap(s.slots)), http.StatusTooManyRequests)
		return nil, false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes))
	if err != nil {
		s.release()
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			http.Error(w, fmt.Sprintf("the review is over %d bytes", s.opts.MaxBodyBytes), http.StatusRequestEntityTooLarge)
			return nil, false
		}
		http.Error(w, fmt.Sprintf("reading the review: %.200v", err), http.StatusBadRequest)
		return nil, false
	}
	return body, true
}

func (s *Server) release() { <-s.slots }

// reviewTime is how long a review may take: the webhook's limit, or the
// ?timeout= the API server sends when shorter.
func reviewTime(r *http.Request, limit time.Duration) time.Duration {
	if d, err := time.ParseDuration(r.URL.Query().Get("timeout")); err == nil && d > 0 && d < limit {
		return d
	}
	return limit
}

// bounded calls fn with a context that ends after limit and returns what it
// returned, or nil when the limit passed first. It takes over the caller's
// slot (admit's) and releases it when fn returns, not when the answer is
// written: user code that ignores its context runs on past the limit, and
// still holds its slot, so the server never runs more than MaxReviews of it
// at once. ok is false when fn panicked; the panic is logged, not spread.
func bounded[R any](ctx context.Context, s *Server, limit time.Duration, fn func(context.Context) *R) (resp *R, ok bool) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel() // fn, still running past its limit, sees its context done
	type result struct {
		resp *R
		ok   bool
	}
	done := make(chan result, 1)
	go func() {
		defer s.release()
		defer func() {
			if p := recover(); p != nil {
				s.log.Error("webhook panicked", "panic", p, "stack", string(debug.Stack()))
				done <- result{nil, false}
			}
		}()
		done <- result{fn(ctx), true}
	}()
	select {
	case res := <-done:
		return res.resp, res.ok
	case <-ctx.Done():
		return nil, true
	}
}

// writeJSON writes v as the answer.
func writeJSON(w http.ResponseWriter, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.Write(body)
}
