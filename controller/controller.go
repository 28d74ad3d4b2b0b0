package controller

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/queue"
)

// Request names the object to reconcile: the key that travels through the
// workqueue. It carries no event and no object: Reconcile reads the current state
// from the cache, so whatever happened and however many times, one call brings the
// world in line (level-based, not edge-based).
type Request struct{ Namespace, Name string }

// String is the store's key: "namespace/name", or "name" when cluster-scoped.
func (r Request) String() string {
	if r.Namespace == "" {
		return r.Name
	}
	return r.Namespace + "/" + r.Name
}

// RequestFor is the Request of an object.
func RequestFor(obj *apiclient.Object) Request {
	return Request{Namespace: obj.Metadata.Namespace, Name: obj.Metadata.Name}
}

// Result tells the loop what to do after a successful Reconcile.
type Result struct {
	// RequeueAfter, when positive, reconciles the same Request again after this
	// long (for work that waits on time, not on an event).
	RequeueAfter time.Duration
}

// Reconciler is the user's logic.
type Reconciler interface {
	Reconcile(ctx context.Context, req Request) (Result, error)
}

// ReconcilerFunc adapts a function to Reconciler.
type ReconcilerFunc func(ctx context.Context, req Request) (Result, error)

// Reconcile calls f.
func (f ReconcilerFunc) Reconcile(ctx context.Context, req Request) (Result, error) {
	return f(ctx, req)
}

// Terminal marks an error that retrying cannot fix (bad input, a spec that
// validation should have caught): the loop logs it and does not requeue.
func Terminal(err error) error { return &terminalError{err} }

type terminalError struct{ err error }

func (e *terminalError) Error() string { return "terminal: " + e.err.Error() }
func (e *terminalError) Unwrap() error { return e.err }

// Options tune a Controller. The zero value is usable: one worker, 15 retries,
// client-go's default rate limiter, the real clock, 30 s to finish on shutdown.
type Options struct {
	Workers    int
	MaxRetries int
	// Limiter spaces the retries of failing Requests; nil means
	// queue.DefaultLimiter (per-item 5 ms doubling to 1000 s, and 10 qps overall).
	Limiter queue.Limiter[Request]
	// Clock times the queue's delays and metrics and the shutdown timeout; nil
	// means RealClock. Use the Manager's Clock here too (clock.go).
	Clock Clock
	// ResyncPeriod, when positive, reconciles every cached object of each watched
	// informer this often even if nothing changed: a safety net for a world that
	// drifted without an event (controller-runtime's SyncPeriod).
	ResyncPeriod time.Duration
	// ShutdownTimeout bounds how long Run waits, after its context is done, for
	// reconciles in flight; then their context is cancelled too. A reconcile that
	// ignores that cancellation gets one more ShutdownTimeout, after which Run
	// returns an error and leaves it running: shutdown never waits longer than
	// twice this.
	ShutdownTimeout time.Duration
	Log             *slog.Logger
	// Trace, when set, is given one line per step ("queue add default/web depth=1",
	// "controller reconcile default/web ok 1.2ms").
	Trace func(line string)
}

// Controller runs a Reconciler over the Requests its watched informers produce:
//
//	informer ─▶ handler ─▶ queue.Add(Request) ─▶ worker: Get ─▶ Reconcile ─▶ Done
//	                                                  ▲            │ error: AddRateLimited (≤ MaxRetries)
//	                                                  └────────────┘ RequeueAfter: AddAfter
//
// Build it with New, connect informers with Watch, and Run it. Safe for
// concurrent use.
type Controller struct {
	name       string
	reconciler Reconciler
	queue      *queue.Queue[Request]
	opts       Options
	informers  []*informer.Informer

	stats stats
}

// New builds a controller; it does nothing until Run.
func New(name string, r Reconciler, opts Options) *Controller {
	if opts.Workers <= 0 {
		opts.Workers = 1
	}
	if opts.MaxRetries <= 0 {
		opts.MaxRetries = 15
	}
	if opts.Clock == nil {
		opts.Clock = RealClock{}
	}
	if opts.ShutdownTimeout <= 0 {
		opts.ShutdownTimeout = 30 * time.Second
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	q := queue.New(queue.Config[Request]{Clock: opts.Clock, Limiter: opts.Limiter})
	return &Controller{name: name, reconciler: r, queue: q, opts: opts}
}

// Name is the controller's name, for logs and metrics.
func (c *Controller) Name() string { return c.name }

// Queue is the controller's workqueue, for metrics.
func (c *Controller) Queue() *queue.Queue[Request] { return c.queue }

// Watch connects an informer: each add, update and delete it sees becomes the
// Requests that toRequests returns (nil means the object's own Request). Use a
// mapping to watch other kinds than the one reconciled — a pod's owner, every
// pod matching a deployment's selector. Call Watch before Run.
func (c *Controller) Watch(inf *informer.Informer, toRequests func(*apiclient.Object) []Request) {
	if toRequests == nil {
		toRequests = func(o *apiclient.Object) []Request { return []Request{RequestFor(o)} }
	}
	enqueue := func(o *apiclient.Object) {
		for _, r := range toRequests(o) {
			c.add(r)
		}
	}
	c.informers = append(c.informers, inf)
	inf.AddHandler(c.name, informer.HandlerFuncs{
		AddFunc:    func(o *apiclient.Object, _ bool) { enqueue(o) },
		UpdateFunc: func(_, o *apiclient.Object) { enqueue(o) },
		DeleteFunc: func(o *apiclient.Object, _ bool) { enqueue(o) },
	}, c.opts.ResyncPeriod)
}

// WatchWith connects an informer through a handler of the caller's making, for
// controllers that react to transitions (a pod that was Pending and is now
// Running) rather than to every change; the handler calls enqueue with the
// Requests to reconcile. Call it before Run.
func (c *Controller) WatchWith(inf *informer.Informer, handler func(enqueue func(Request)) informer.Handler) {
	c.informers = append(c.informers, inf)
	inf.AddHandler(c.name, handler(c.add), 0)
}

// add queues r, and traces whether the queue took it or it was already waiting
// (dedup: ten changes before a worker gets to it are one reconcile).
func (c *Controller) add(r Request) {
	before := c.queue.Len()
	c.queue.Add(r)
	if c.opts.Trace == nil {
		return
	}
	if after := c.queue.Len(); after > before {
		c.trace("queue add %s depth=%d", r, after)
	} else {
		c.trace("queue dedup %s depth=%d (already waiting or being processed)", r, after)
	}
}

// Run waits until every watched informer has synced (and its handlers have the
// initial list), starts the workers, and blocks until ctx is done. Then it stops
// handing out work, gives the reconciles in flight ShutdownTimeout to finish, and
// returns (see Options.ShutdownTimeout for a reconcile that hangs). Workers start only after sync: a Reconcile that reads a half-filled
// cache would take missing objects for deleted ones.
func (c *Controller) Run(ctx context.Context) error {
	for _, inf := range c.informers {
		if !inf.WaitForCacheSync(ctx) {
			c.queue.ShutDown()
			return fmt.Errorf("controller %s: %w", c.name, ctx.Err())
		}
	}
	c.opts.Log.Info("controller started", "controller", c.name, "workers", c.opts.Workers)

	// Reconciles get a context of their own, cancelled only when the shutdown
	// timeout has passed, so a clean shutdown lets them finish their writes.
	work, cancelWork := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelWork()
	var wg sync.WaitGroup
	for i := 0; i < c.opts.Workers; i++ {
		wg.Add(1)
		go func() { // owned by Run, which waits for it below
			defer wg.Done()
			for c.processNextItem(work) {
			}
		}()
	}
	<-ctx.Done()
	// ShutDown: nothing new is taken; workers finish what they hold, then Get
	// reports quit. Past the timeout, the reconciles still running are cancelled.
	c.queue.ShutDown()
	finished := make(chan struct{})
	go func() { // owned by Run; ends when the last worker does
		wg.Wait()
		close(finished)
	}()
	// A reconcile that ignores its cancelled context cannot be stopped from outside
	// (nothing stops a goroutine); it must not hold the process either. So, one
	// more ShutdownTimeout after the cancel, Run gives up on it and returns.
	abandon := make(chan struct{})
	var mu sync.Mutex
	var grace queue.Timer
	timer := c.opts.Clock.AfterFunc(c.opts.ShutdownTimeout, func() {
		c.opts.Log.Warn("reconciles still running at the shutdown timeout; cancelling them", "controller", c.name)
		cancelWork()
		mu.Lock()
		defer mu.Unlock()
		grace = c.opts.Clock.AfterFunc(c.opts.ShutdownTimeout, func() { close(abandon) })
	})
	select {
	case <-finished:
	case <-abandon:
		select {
		case <-finished: // both at once: the workers did finish
		default:
			c.opts.Log.Error("reconciles ignored their cancelled context; leaving them running", "controller", c.name)
			return fmt.Errorf("controller %s: reconciles still running %s after shutdown began, their context cancelled for %s; left running",
				c.name, 2*c.opts.ShutdownTimeout, c.opts.ShutdownTimeout)
		}
	}
	timer.Stop()
	mu.Lock()
	if grace != nil {
		grace.Stop()
	}
	mu.Unlock()
	c.opts.Log.Info("controller stopped", "controller", c.name)
	return nil
}

// processNextItem is one turn of a worker: take a Request, reconcile it, and tell
// the queue how it went. It returns false once the queue is shut down and empty.
func (c *Controller) processNextItem(ctx context.Context) bool {
	req, quit := c.queue.Get()
	if quit {
		return false
	}
	// Done tells the queue this worker is finished with req: if it was added again
	// meanwhile, it is now handed to a worker (maybe this one) — never to two at once.
	defer c.queue.Done(req)
	if c.queue.ShuttingDown() {
		// The queue still hands out what it holds after ShutDown (as client-go's
		// does); a controller that is stopping takes no new work. The next leader,
		// or the next start, lists everything again anyway.
		return false
	}

	start := c.opts.Clock.Now()
	res, err := c.reconcile(ctx, req)
	took := c.opts.Clock.Since(start)
	c.stats.observe(took, err)
	var terminal *terminalError
	switch {
	case err == nil:
		// Forget clears req's failure history, so a later failure backs off from
		// the start again.
		c.queue.Forget(req)
		if res.RequeueAfter > 0 {
			c.queue.AddAfter(req, res.RequeueAfter)
			c.trace("controller reconcile %s ok %s, requeue after %s", req, took, res.RequeueAfter)
			return true
		}
		c.trace("controller reconcile %s ok %s", req, took)
	case errors.As(err, &terminal):
		c.queue.Forget(req)
		c.opts.Log.Error("reconcile failed for good", "controller", c.name, "request", req.String(), "err", err)
		c.trace("controller reconcile %s terminal error: %v", req, err)
	case c.queue.NumRequeues(req) < c.opts.MaxRetries:
		// Back off and retry: AddRateLimited waits longer after each failure.
		c.queue.AddRateLimited(req)
		c.opts.Log.Warn("reconcile failed, will retry", "controller", c.name, "request", req.String(), "retry", c.queue.NumRequeues(req), "err", err)
		c.trace("controller reconcile %s error (retry %d): %v", req, c.queue.NumRequeues(req), err)
	default:
		c.queue.Forget(req)
		c.stats.dropped.Add(1)
		c.opts.Log.Error("reconcile failed too often, dropping", "controller", c.name, "request", req.String(), "retries", c.opts.MaxRetries, "err", err)
		c.trace("controller reconcile %s dropped after %d retries: %v", req, c.opts.MaxRetries, err)
	}
	return true
}

// reconcile calls the Reconciler, turning a panic into an error so that one bad
// object cannot take the process down.
func (c *Controller) reconcile(ctx context.Context, req Request) (res Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			c.stats.panics.Add(1)
			c.opts.Log.Error("reconcile panicked", "controller", c.name, "request", req.String(), "panic", p, "stack", string(debug.Stack()))
			err = fmt.Errorf("reconcile %s panicked: %v", req, p)
		}
	}()
	return c.reconciler.Reconcile(ctx, req)
}

func (c *Controller) trace(format string, args ...any) {
	if c.opts.Trace != nil {
		c.opts.Trace(fmt.Sprintf(format, args...))
	}
}

// Stats is what the reconcile loop has done, as plain values for /metrics.
type Stats struct {
	Reconciles, Errors, Dropped, Panics uint64
	// TimeSpent is the total time spent in Reconcile.
	TimeSpent time.Duration
}

// Stats returns a snapshot.
func (c *Controller) Stats() Stats { return c.stats.snapshot() }

type stats struct {
	mu              sync.Mutex
	total, errors   uint64
	spent           time.Duration
	dropped, panics atomic.Uint64
}

func (s *stats) observe(took time.Duration, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.total++
	if err != nil {
		s.errors++
	}
	s.spent += took
}

func (s *stats) snapshot() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Stats{Reconciles: s.total, Errors: s.errors, Dropped: s.dropped.Load(), Panics: s.panics.Load(), TimeSpent: s.spent}
}
