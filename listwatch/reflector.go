package listwatch

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubewire/kubewire/apiclient"
)

// Reflector keeps a Sink in step with one resource on the API server: it lists, then
// watches, and starts over when the server says so, for as long as Run runs. The
// package doc draws its states; this file holds one method per transition.
//
// Build one with New; the zero value is not usable. Run is called once. Health,
// HasSynced and LastSyncResourceVersion are safe from any goroutine; everything
// else belongs to the Run goroutine.
type Reflector struct {
	rc    apiclient.ResourceClient
	sink  Sink
	opts  Options
	clock apiclient.Clock
	log   *slog.Logger
	rand  func() float64

	// Owned by the Run goroutine.
	rv            string        // the last resourceVersion seen: where the next watch starts
	rvUnavailable bool          // a LIST at rv got 410: list the latest state instead
	paged         bool          // a LIST came back in pages: this server pages (no watch cache)
	streaming     bool          // streaming lists are on and the server has not refused one
	latestCheap   bool          // a LIST of the latest state costs this server no more than one at "0" (list.go)
	chosen        bool          // streaming was decided (method.go)
	unsplittable  bool          // the server cannot split this list (split.go): do not probe again
	shards        int8          // the server serves shardSelector: 1 yes, -1 no, 0 not asked yet
	synced        bool          // the first list reached the Sink
	watches       int           // watches started since the last list
	events        int           // watch events since the last list
	idleTimeout   time.Duration // of the current watch: its timeout plus the margin
	quickRelist   time.Time     // when a relist last went without a wait (relist)
	backoff       backoff

	tracing bool // someone reads the steps (OnStep, or the log at debug level)

	running atomic.Bool
	mu      sync.Mutex // guards health
	health  Health
}

// New returns a Reflector that lists and watches rc (a resource, in a namespace or in
// all) into sink.
func New(rc apiclient.ResourceClient, sink Sink, opts Options) *Reflector {
	opts = opts.withDefaults()
	r := &Reflector{rc: rc, sink: sink, opts: opts, clock: opts.Clock}
	r.log = opts.Logger.With("reflector", opts.Name)
	r.rand = rand.Float64
	if opts.Rand != nil {
		r.rand = opts.Rand.Float64
	}
	r.backoff = newBackoff(opts)
	r.tracing = opts.OnStep != nil || r.log.Enabled(context.Background(), slog.LevelDebug)
	return r
}

// stateFn is one state of the loop: it does the state's work and returns the next
// state, nil to stop.
type stateFn func(ctx context.Context) stateFn

// Run lists, watches and recovers until ctx is done, then returns nil. It returns an
// error only when it cannot start: no Sink, or called a second time.
func (r *Reflector) Run(ctx context.Context) error {
	if r.sink == nil {
		return errors.New("listwatch: New was given a nil Sink")
	}
	if !r.running.CompareAndSwap(false, true) {
		return errors.New("listwatch: Run called twice")
	}
	defer r.setState(Stopped)
	for state := r.listing; state != nil && ctx.Err() == nil; {
		state = state(ctx)
	}
	return nil
}

// listing is the Listing state: a streaming list when on (Options.List, decided
// at the first list: choose), else (or when it fails before the list is
// complete) a LIST; then the Sink is replaced and the loop watches. Only a
// complete list reaches the Sink (listed is its one caller of Replace); a failed
// one backs off and lists again.
func (r *Reflector) listing(ctx context.Context) stateFn {
	r.setState(Listing)
	if r.synced {
		r.count(true, false)
	}
	r.choose(ctx)
	if r.streaming {
		res := r.watch(ctx, true)
		if res.kind != fellBack {
			return r.after(res)
		}
	}
	items, rv, err := r.list(ctx)
	if ctx.Err() != nil {
		return nil
	}
	if err == nil {
		err = r.listed(items, rv, false)
	}
	if err != nil {
		// Whatever failed — a 404 for a CRD not installed yet, a 403, a 5xx, a
		// body cut or malformed halfway — the Sink keeps what it holds: a list
		// that did not complete says nothing about what exists. An empty Replace
		// here would mark an informer synced with nothing in it, and a controller
		// that deletes what has no owner in the cache would delete everything.
		return r.backOff(ctx, err, r.listing)
	}
	return r.watching
}

// watching is the Watching state: one watch from the last resourceVersion.
func (r *Reflector) watching(ctx context.Context) stateFn {
	r.setState(Watching)
	return r.after(r.watch(ctx, false))
}

// after is the way out of Watching: where a watch's end leads.
func (r *Reflector) after(res result) stateFn {
	switch res.kind {
	case stopped:
		return nil
	case ended:
		return r.rewatch
	case gone:
		return r.relist(res.err)
	case idle:
		return r.dropIdle(res.err)
	case refused:
		return r.refusedWatch(res.err)
	case notListed:
		return func(ctx context.Context) stateFn { return r.backOff(ctx, res.err, r.listing) }
	}
	return func(ctx context.Context) stateFn { return r.backOff(ctx, res.err, r.watching) }
}

// listed: Listing → Watching. The list goes to the Sink as one Replace at its
// resourceVersion, and the watch will start from there. Its step is told first,
// as a watch event's is (apply).
func (r *Reflector) listed(items []*apiclient.Object, rv string, streamed bool) error {
	r.step(Step{Op: OpListed, ResourceVersion: rv, Items: len(items), Initial: streamed})
	if err := r.sink.Replace(items, rv); err != nil {
		return &sinkError{op: "replace", err: err}
	}
	r.rv, r.rvUnavailable, r.watches, r.events = rv, false, 0, 0
	r.answered()
	if streamed {
		r.watches = 1 // the stream goes on as the first watch after this list
	}
	r.synced = true
	r.mu.Lock()
	r.health.State = Watching // a streaming list goes on watching on the same stream
	r.health.Synced = true
	r.health.ResourceVersion = rv
	if !streamed { // a streaming list's objects were counted as they came
		r.health.Received += uint64(len(items))
	}
	r.mu.Unlock()
	return nil
}

// rewatch: Watching → Watching, after the server ended a watch normally (its
// timeoutSeconds passed). Nothing was lost: watch again from the last
// resourceVersion, at once and without a LIST.
func (r *Reflector) rewatch(ctx context.Context) stateFn {
	return r.watching(ctx)
}

// relist: Watching → Listing, after a 410 (or a 504 "too large resource
// version"): the server no longer has the history after our resourceVersion, so
// only a fresh list can say what exists; Replace then turns what vanished
// meanwhile into deletes.
//
// The relist goes at once only when the watch brought news since the last list
// and no relist went at once within the backoff's ResetAfter (2 minutes by
// default); otherwise it backs off first, and the waits grow while it keeps
// happening. A healthy server sends a 410 when a watch fell behind its history,
// minutes apart; one that sends it right after a list (no event since), or
// after one event every time (issue 39: 24,922 requests in 10 s), would
// otherwise make a tight LIST loop. (client-go waits out its backoff manager
// before every relist, at least 0.8 s.)
func (r *Reflector) relist(err error) stateFn {
	r.noteError(err)
	now := r.clock.Now()
	if r.events == 0 || !r.quickRelist.IsZero() && now.Sub(r.quickRelist) < r.opts.Backoff.ResetAfter {
		return func(ctx context.Context) stateFn { return r.backOff(ctx, err, r.listing) }
	}
	r.quickRelist = now
	r.step(Step{Op: OpError, Err: err, Next: "relist"})
	r.log.Info("watch expired, listing again", "err", err)
	return r.listing
}

// refusedWatch: Watching → BackingOff → Listing, when the server refused the
// watch request itself (a 4xx, see refusedVersion). A 400 says it cannot read
// our resourceVersion, so the list asks for the latest state instead of that
// version (a LIST at it would be refused the same way).
func (r *Reflector) refusedWatch(err error) stateFn {
	if apiclient.CodeOf(err) == http.StatusBadRequest {
		r.rvUnavailable = true
	}
	return func(ctx context.Context) stateFn { return r.backOff(ctx, err, r.listing) }
}

// dropIdle: Watching → BackingOff, when a watch went silent past its timeout plus
// the margin. The connection is presumed dead (a NAT dropped it, the node died);
// it was closed, and after a wait the watch resumes from the last resourceVersion.
func (r *Reflector) dropIdle(err error) stateFn {
	r.noteError(err)
	r.step(Step{Op: OpIdle, Timeout: r.idleTimeout})
	r.log.Warn("watch idle, reconnecting", "after", r.idleTimeout)
	return func(ctx context.Context) stateFn { return r.waitThen(ctx, err, r.watching) }
}

// backOff: Listing or Watching → BackingOff → the same state again, after a
// failure: a connection refused or reset, a 5xx, a 429, a malformed or cut stream,
// a Sink that refused a list.
func (r *Reflector) backOff(ctx context.Context, err error, then stateFn) stateFn {
	if ctx.Err() != nil {
		return nil // stopped meanwhile: the failure is the stop's, nothing to back off from
	}
	r.noteError(err)
	r.step(Step{Op: OpError, Err: err, Next: "back off"})
	if ctx.Err() != nil {
		return nil // whoever read the step stopped us: nothing to say or wait for
	}
	switch {
	case !apiclient.IsUnreachable(err):
		r.log.Warn("list/watch failed, backing off", "err", err)
	case !r.backoff.unreachable: // said once, not every second or two
		r.log.Warn("the API server does not answer; asking again every 1–2 s", "err", err)
	default:
		r.log.Debug("the API server still does not answer", "err", err)
	}
	return r.waitThen(ctx, err, then)
}

// waitThen is the BackingOff state: wait as the backoff (or the server's
// Retry-After) says, then go on to then.
func (r *Reflector) waitThen(ctx context.Context, err error, then stateFn) stateFn {
	r.setState(BackingOff)
	unreachable := apiclient.IsUnreachable(err)
	if !unreachable {
		r.answered()
	}
	d := r.backoff.wait(r.clock.Now(), r.rand, unreachable)
	if ra := retryAfter(err); ra > d {
		d = ra
	}
	// The timer is armed before the step is reported, so whoever watches the steps
	// (a test with a fake clock) may move time at once.
	timer := r.clock.After(d)
	r.step(Step{Op: OpBackoff, Wait: d})
	select {
	case <-ctx.Done():
		return nil
	case <-timer:
		return then
	}
}

// answered is told of every answer from the server (a list read, a watch opened,
// a Status): the first after failures that had none restarts the backoff.
func (r *Reflector) answered() {
	if r.backoff.answered() {
		r.log.Info("the API server answers again")
	}
}

// step hands a step to OnStep and to the debug log. The per-object steps (ITEM,
// ADD, …) are only built when r.tracing: their key costs an allocation per event.
func (r *Reflector) step(s Step) {
	if r.opts.OnStep != nil {
		r.opts.OnStep(s)
	}
	if r.log.Enabled(context.Background(), slog.LevelDebug) {
		r.log.Debug(s.String())
	}
}

// retryAfter is the wait a throttling server asked for in its Status, if any. (A
// Retry-After header was already obeyed by apiclient, up to its retry limit.)
func retryAfter(err error) time.Duration {
	var se *apiclient.StatusError
	if errors.As(err, &se) && se.Status.Details != nil && se.Status.Details.RetryAfterSeconds > 0 {
		return time.Duration(se.Status.Details.RetryAfterSeconds) * time.Second
	}
	return 0
}

// sinkError is a Sink's failure, told apart from the server's.
type sinkError struct {
	op  string
	err error
}

func (e *sinkError) Error() string { return "sink: " + e.op + ": " + e.err.Error() }
func (e *sinkError) Unwrap() error { return e.err }
