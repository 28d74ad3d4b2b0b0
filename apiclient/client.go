package apiclient

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubewire/kubewire/apiclient/kubeconfig"
)

// Version is kubewire's version, sent in the User-Agent.
const Version = "0.1.0"

// Client talks to one API server as one user. Every call goes through one
// function, do, which rate-limits, sets headers, retries what the server asks to be
// retried, and turns failures into a *StatusError.
//
// A Client is safe for concurrent use; create one per cluster and share it.
type Client struct {
	base       *url.URL
	http       *http.Client
	userAgent  string
	maxRetries int
	namespace  string
	listLimits ListLimits

	// set is what the client does with its requests: fixed at New (or
	// Derive), replaced once by Adopt. A request reads it once, as it starts,
	// so nothing changes under a request in flight.
	set     atomic.Pointer[settings]
	adopted atomic.Bool

	*shared // what a Client and those Derived from it have in common
}

// settings is what a Client does with its requests: the clock it waits on,
// where it logs, whom it tells.
type settings struct {
	clock     Clock
	log       *slog.Logger // Options.Log, or slog.Default()
	onWarning func(string)
	limiter   *tokenBucket // nil: no client-side limit
	observer  Observer
	opts      Options // as New completed them, for Derive and Adopt
}

// shared is what a Client and the clients Derived from it have in common:
// what the server told them about itself.
type shared struct {
	discoveryMu sync.Mutex
	discovery   *discoveryCache

	version atomic.Pointer[ServerVersion] // ServerVersion's first answer
}

// Observer is told of a Client's requests, each with the caller's context and
// what the request is (RequestInfo, WriteInfo: verb, resource, namespace, name,
// subresource — what the caller asked, never parsed back from a URL). It is
// given in Options or to Derive; Adopt, once, adds its owner's after it, and
// a request in flight keeps the Observer it started with. Any field may be
// nil. Every call runs on the caller's goroutine, so
// it must be quick, and safe for concurrent use.
type Observer struct {
	// Sent is told of every request as it goes out, before any answer (Code
	// and Took are zero): a trace shows a write when it is made, ahead of the
	// watch event it causes.
	Sent func(ctx context.Context, r RequestInfo)
	// Answered is told of every request once it has an answer, or failed in
	// transport (Code 0). The controller's /metrics counts requests with it,
	// its RBAC recorder notes what each needed, and the command logs them at
	// -v 6.
	Answered func(ctx context.Context, r RequestInfo)
	// Write is told of each write of one object — Create, Update, Patch,
	// Apply, Delete; not DeleteCollection — as it begins, and the func it
	// returns (nil: none) is called once when the write is over: with the
	// object the server answered, or the error. A DELETE may be answered with
	// the object or with a Status naming it (kind Status, its details.uid); the
	// func gets either, decoded, or nil if the answer was neither. The
	// controller's staleness guard and its read-your-own-writes reads are built
	// on it (package controller, "A stale cache after your own write").
	Write func(ctx context.Context, w WriteInfo) (done func(answer *Object, err error))
}

// Then returns an Observer that tells o, then next, of each request.
func (o Observer) Then(next Observer) Observer {
	return Observer{Sent: both(o.Sent, next.Sent), Answered: both(o.Answered, next.Answered), Write: bothWrites(o.Write, next.Write)}
}

func both(first, second func(context.Context, RequestInfo)) func(context.Context, RequestInfo) {
	switch {
	case first == nil:
		return second
	case second == nil:
		return first
	}
	return func(ctx context.Context, r RequestInfo) {
		first(ctx, r)
		second(ctx, r)
	}
}

func bothWrites(first, second func(context.Context, WriteInfo) func(*Object, error)) func(context.Context, WriteInfo) func(*Object, error) {
	switch {
	case first == nil:
		return second
	case second == nil:
		return first
	}
	return func(ctx context.Context, w WriteInfo) func(*Object, error) {
		a, b := first(ctx, w), second(ctx, w)
		return func(answer *Object, err error) {
			if a != nil {
				a(answer, err)
			}
			if b != nil {
				b(answer, err)
			}
		}
	}
}

// RequestInfo describes one HTTP request: what it is to the API server's
// authorizer, from what the caller asked for (never parsed back from the URL),
// and, once answered, how it went.
type RequestInfo struct {
	Verb string // GET, POST, … (the HTTP method)
	URL  string // with the query; no credentials
	Host string // the API server's host[:port], as the client was configured with it
	Code int    // the HTTP status code; 0 when the request failed in transport, or not answered yet (Observer.Sent)
	Took time.Duration

	// Action is the verb an RBAC rule names for the request, as kube-apiserver
	// maps it: get, list, watch, create, update, patch (server-side apply
	// included), delete, deletecollection. "" for a request to no resource
	// (discovery, /version: every authenticated user may read those, through
	// the system:discovery ClusterRole).
	Action string
	// Resource is the resource the request is about, as the caller named it;
	// the zero value when Action is "".
	Resource Resource
	// Namespace is where: "" for a cluster-scoped resource, and for a list or
	// watch of a namespaced one across all namespaces.
	Namespace string
	// Name is the object's; "" for a collection (list, watch, create,
	// deletecollection).
	Name string
	// Subresource is "status", "scale", …, or "" for the object itself.
	Subresource string
}

// Options tune a Client. The zero value is a client without client-side rate
// limiting that retries what the server asks to be retried 10 times and logs the
// server's warnings once each.
type Options struct {
	// QPS and Burst, when QPS is positive, shape a token bucket every request but
	// watches waits on: Burst requests at once (default 10), then QPS a second.
	//
	// The default is no client-side limit. client-go's 5 QPS, burst 10, made 150
	// label patches take 28.0 s where they take 0.58 s without it (kube-apiserver
	// v1.32.4 on loopback, 2026-11-24, BenchmarkIntegration_label_150_configmaps).
	// The API server protects itself since API Priority and Fairness (GA in 1.29):
	// it queues a client per priority level and answers 429 with Retry-After when
	// a level is full, and this client waits and retries those (MaxRetries). A
	// client-side bucket only guesses at what the server can take, and guesses
	// low. controller-runtime came to the same conclusion and turned its limiter
	// off by default in v0.21; kubectl lifts its own to 50/300. Set QPS where a
	// server predates Priority and Fairness or a quota asks for it.
	QPS   float64
	Burst int
	// UserAgent defaults to "kubewire/VERSION (OS/ARCH)".
	UserAgent string
	// MaxRetries bounds retries of 429 and 5xx responses that carry Retry-After;
	// default 10, as client-go.
	MaxRetries int
	// Transport replaces the one built from the config (tests use
	// httptest.Server.Client().Transport).
	Transport http.RoundTripper
	// Clock replaces the real clock for waits (rate limiting, Retry-After).
	Clock Clock
	// OnWarning is given the text of every warning the server sends (the Warning
	// header: deprecated APIs, unknown fields; warning.go), from the goroutine
	// that made the request. nil logs each distinct text once, at WARN, to Log,
	// cut to 1 KiB, at most 20 lines a minute.
	OnWarning func(text string)
	// Log is where the default OnWarning writes, and where waits the server asked
	// for (Retry-After) are told; nil means slog.Default().
	Log *slog.Logger
	// Observer is told of every request and every write (Observer).
	Observer Observer
	// ListLimits bound every list made through the client (paging.go); the zero
	// value has the defaults, 1 GiB and 500,000 objects a list.
	ListLimits ListLimits
}

// New builds a Client for cfg. It fails only when the config cannot make a
// transport (unreadable CA, bad certificate).
func New(cfg *kubeconfig.Config, opts Options) (*Client, error) {
	base, err := url.Parse(cfg.Server)
	if err != nil || base.Host == "" || (base.Scheme != "https" && base.Scheme != "http") {
		return nil, fmt.Errorf("apiclient: server %q in %s is not an http(s) URL", cfg.Server, cfg.Source)
	}
	base.Path = strings.TrimSuffix(base.Path, "/")
	rt := opts.Transport
	if rt == nil {
		if rt, err = cfg.Transport(); err != nil {
			return nil, fmt.Errorf("apiclient: %w", err)
		}
	}
	if opts.Burst <= 0 {
		opts.Burst = 10
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	if opts.UserAgent == "" {
		opts.UserAgent = fmt.Sprintf("kubewire/%s (%s/%s)", Version, runtime.GOOS, runtime.GOARCH)
	}
	if opts.MaxRetries == 0 {
		opts.MaxRetries = 10
	}
	if opts.Clock == nil {
		opts.Clock = RealClock{}
	}
	ns := cfg.Namespace
	if ns == "" {
		ns = "default"
	}
	// No overall timeout: a watch lives for minutes. Requests are bounded by
	// their contexts.
	return build(base, &http.Client{Transport: rt}, ns, opts, &shared{}), nil
}

// build makes a Client of completed options.
func build(base *url.URL, hc *http.Client, ns string, opts Options, sh *shared) *Client {
	c := &Client{
		base:       base,
		http:       hc,
		userAgent:  opts.UserAgent,
		maxRetries: opts.MaxRetries,
		namespace:  ns,
		listLimits: opts.ListLimits.withDefaults(),
		shared:     sh,
	}
	c.set.Store(settingsOf(opts))
	return c
}

// settingsOf makes the settings of completed options.
func settingsOf(opts Options) *settings {
	s := &settings{clock: opts.Clock, log: opts.Log, onWarning: opts.OnWarning, observer: opts.Observer, opts: opts}
	if s.onWarning == nil {
		s.onWarning = (&warnings{log: opts.Log}).warn
	}
	if opts.QPS > 0 {
		s.limiter = newTokenBucket(opts.QPS, opts.Burst, opts.Clock)
	}
	return s
}

// derived is s changed by d: d's Clock and Log replace s's where set, d's
// Observer is told after s's. The rate limiter stays s's unless the clock
// changes (a bucket waits on one clock).
func (s *settings) derived(d Derived) *settings {
	opts := s.opts
	if d.Clock != nil {
		opts.Clock = d.Clock
	}
	if d.Log != nil {
		opts.Log = d.Log
	}
	opts.Observer = opts.Observer.Then(d.Observer)
	out := settingsOf(opts)
	if d.Clock == nil {
		out.limiter = s.limiter // one bucket for both: the same clock
	}
	return out
}

// Derived is what Derive (and Adopt) changes of a Client: each field that is
// set replaces the client's; Observer is told of requests after the client's own.
type Derived struct {
	Clock    Clock
	Log      *slog.Logger
	Observer Observer
}

// Derive returns a client for one use — the command's -v 6 request log, a
// test's observer, a second controller.Manager's own client — that shares c's connections and what discovery
// learned, but waits on d.Clock, logs to d.Log (the server's warnings, unless
// Options.OnWarning was set, and the waits it asks for) and tells d.Observer
// of its requests too. c itself is left as it was: whoever else uses it sees
// no difference, and nothing is changed under a request in flight. With a
// Clock of its own, the derived client has a rate limiter of its own (QPS and
// Burst as c's).
func (c *Client) Derive(d Derived) *Client {
	s := c.set.Load().derived(d)
	out := build(c.base, c.http, c.namespace, s.opts, c.shared)
	out.set.Store(s)
	return out
}

// Adopt makes c its owner's — a controller.Manager adopts the client it is
// given — once: from then on c itself waits on d.Clock, logs to d.Log (each
// where set) and tells d.Observer of its requests after its own Observer, as
// a client Derived with d would, and so does every client Derived from c
// afterwards. So whoever holds c, and whatever they hand it to, makes requests
// the owner sees: none can be made around it by using the client the owner
// was given instead of one it hands out. Requests already in flight finish as
// they began. A second Adopt is an error, and changes nothing: two owners'
// observers would each count, trace and guard the other's requests as their
// own. Clients Derived from c before it was adopted are not the owner's.
func (c *Client) Adopt(owner string, d Derived) error {
	if !c.adopted.CompareAndSwap(false, true) {
		return fmt.Errorf("apiclient: the client has an owner already; %s needs a client of its own (New, or Derive from one no owner has adopted yet)", owner)
	}
	c.set.Store(c.set.Load().derived(d))
	return nil
}

// Clock is the clock the client waits on (Options.Clock, or RealClock; its
// owner's once adopted, Adopt).
func (c *Client) Clock() Clock { return c.set.Load().clock }

// Log is the logger the client writes to (Options.Log, or slog.Default();
// its owner's once adopted, Adopt).
func (c *Client) Log() *slog.Logger { return c.set.Load().log }

// Namespace is the config's namespace ("default" when it names none): where
// namespaced calls go when the caller has no better idea.
func (c *Client) Namespace() string { return c.namespace }

// Server is the API server's base URL.
func (c *Client) Server() string { return c.base.Redacted() }
