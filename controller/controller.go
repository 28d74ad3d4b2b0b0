package controller

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/controller/metrics"
	"github.com/kubewire/kubewire/controller/trace"
	"github.com/kubewire/kubewire/queue"
)

// DefaultMaxBackoff is where the per-Request backoff of the default Limiter
// stops doubling: a Request that keeps failing is retried every 5 minutes
// (doc.go, "Failure handling", says why not client-go's 1000 s).
const DefaultMaxBackoff = 5 * time.Minute

// Controller runs a Reconciler over the Requests its watched informers produce:
//
//	informer ─▶ handler ─▶ queue.Add(Request) ─▶ worker: Get ─▶ Reconcile ─▶ Done
//	                                                  ▲            │ error, Requeue: AddRateLimited
//	                                                  └────────────┘ RequeueAfter: AddAfter
//
// Build it with New(m, …).For(…)…Complete(r), and the Manager runs it; or,
// for the loop alone, with NewController, and Run it yourself. Safe for
// concurrent use.
type Controller struct {
	name       string
	reconciler Reconciler
	queue      *queue.Queue[Request]
	opts       Options
	// log, trace and clock are the Manager's (ManagerOptions) for a
	// controller it built; a controller alone has no trace.
	log   *slog.Logger
	trace func(trace.Event)
	clock Clock

	mu       sync.Mutex // guards started, regs and failures
	started  bool
	regs     []*informer.Registration // Run waits for these to sync
	failures map[Request]int          // failures in a row, kept only with MaxRetries

	traceMu sync.Mutex // with a trace: a queue add and its line, one at a time (add)

	// primary is the informer of the controller's own objects (For), set by
	// Complete.
	primary *informer.Informer
	// caches, set by the Manager, are the informers it holds when the
	// controller starts: run waits for each to have listed, since a Reconcile
	// may read any of them through a Lister (it is not told which).
	caches func() []*informer.Informer
	// admit, set by the Manager, is asked before each Reconcile whether to
	// reconcile the Request now, later or not at all (admit.go); nil admits
	// everything now.
	admit admitFunc

	stats stats
}

// NewController builds a Controller: a workqueue of Requests, r, and the
// workers that run r over what is queued (Run), with the defaults of opts
// filled in, timed by clock and logging to log (nil: the wall clock,
// slog.Default()). Whatever is added to its Queue is reconciled.
//
// Builder.Complete builds every controller of a Manager with it, with the
// Manager's clock and logger, and then gives it what only a Manager has: its
// trace; handlers on the Manager's informers that fill the queue (For, Owns,
// Watches); the caches its workers wait for before the first Reconcile; and
// the hook asked before each Reconcile, the sharding gate and the staleness
// guard (admit.go). One built alone has none of these: its queue is filled
// by whoever holds it, and every Request is reconciled when taken
// (ExampleNewController). Options.ResyncPeriod and DisableStaleGuard mean
// nothing to it: resyncs come from the For's informer, the guard from the
// Manager.
func NewController(name string, r Reconciler, opts Options, clock Clock, log *slog.Logger) *Controller {
	if clock == nil {
		clock = RealClock{}
	}
	if log == nil {
		log = slog.Default()
	}
	if opts.Workers <= 0 {
		opts.Workers = 1
	}
	if opts.Limiter == nil {
		opts.Limiter = queue.MaxOf(
			queue.NewExponential[Request](queue.DefaultBaseDelay, DefaultMaxBackoff),
			queue.NewTokenBucket[Request](clock, queue.DefaultQPS, queue.DefaultBurst, queue.DefaultBucketMaxDelay),
		)
	}
	if opts.ShutdownTimeout <= 0 {
		opts.ShutdownTimeout = 30 * time.Second
	}
	q := queue.New(queue.Config[Request]{Clock: clock, Limiter: opts.Limiter})
	c := &Controller{name: name, reconciler: r, queue: q, opts: opts, log: log, clock: clock}
	c.stats.durations = metrics.NewHistogram(metrics.ReconcileBuckets)
	if opts.MaxRetries > 0 {
		c.failures = map[Request]int{}
	}
	return c
}

// Name is the controller's name, for logs and metrics.
func (c *Controller) Name() string { return c.name }

// Queue is the controller's workqueue, for metrics.
func (c *Controller) Queue() *queue.Queue[Request] { return c.queue }

// Run waits until the handlers its watches registered have each been given
// their informer's initial list, and every other cache of the Manager's has
// listed (waitForCaches), starts the workers, and blocks until ctx is
// done. Then it stops handing out work, gives the reconciles in flight
// ShutdownTimeout to finish, and returns (see Options.ShutdownTimeout for a
// reconcile that hangs). Workers start only after sync: a Reconcile that reads a
// half-filled cache would take missing objects for deleted ones. Run waits for its
// own handlers only, not for every handler of a shared informer: another
// controller's slow handler does not hold this one back. It is called once:
// by the Manager for a controller Complete built, by its owner for one built
// with NewController alone.
func (c *Controller) Run(ctx context.Context) error {
	c.mu.Lock()
	if c.started {
		c.mu.Unlock()
		return fmt.Errorf("controller %s: run twice", c.name)
	}
	c.started = true
	regs := c.regs
	c.mu.Unlock()
	for _, reg := range regs {
		if !reg.WaitForSync(ctx) {
			c.queue.ShutDown()
			return fmt.Errorf("controller %s: %w", c.name, ctx.Err())
		}
	}
	if !c.waitForCaches(ctx) {
		c.queue.ShutDown()
		return fmt.Errorf("controller %s: %w", c.name, ctx.Err())
	}
	c.log.Info("controller started", "controller", c.name, "workers", c.opts.Workers)

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
	timer := c.clock.AfterFunc(c.opts.ShutdownTimeout, func() {
		c.log.Warn("reconciles still running at the shutdown timeout; cancelling them", "controller", c.name)
		cancelWork()
		mu.Lock()
		defer mu.Unlock()
		grace = c.clock.AfterFunc(c.opts.ShutdownTimeout, func() { close(abandon) })
	})
	select {
	case <-finished:
	case <-abandon:
		select {
		case <-finished: // both at once: the workers did finish
		default:
			c.log.Error("reconciles ignored their cancelled context; leaving them running", "controller", c.name)
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
	c.log.Info("controller stopped", "controller", c.name)
	return nil
}

// processNextItem is one turn of a worker: take a Request, ask the hook
// whether to reconcile it now (admit.go), reconcile it, and tell the queue how
// it went. It returns false once the queue is shut down and empty.
func (c *Controller) processNextItem(ctx context.Context) bool {
	req, quit := c.queue.Get()
	if quit {
		return false
	}
	// Done tells the queue this worker is finished with req: if it was added again
	// meanwhile, it is now handed to a worker (maybe this one) — never to two at once.
	defer c.queue.Done(req)
	c.stats.taken(req) // no longer waiting out a backoff, if it was
	if c.queue.ShuttingDown() {
		// The queue still hands out what it holds after ShutDown (as client-go's
		// does); a controller that is stopping takes no new work. The next leader,
		// or the next start, lists everything again anyway.
		return false
	}

	// Now, later or never: the hook says (the Manager's sharding gate and
	// staleness guard; a Controller alone admits everything now).
	a := admission{ctx: ctx}
	if c.admit != nil {
		a = c.admit(ctx, req)
	}
	switch a.verdict {
	case admitDrop:
		// Not this worker's to reconcile: no retry either.
		c.queue.Forget(req)
		c.forgetFailures(req)
		return true
	case admitLater:
		// Not yet, and no failure: tried again after the hook's delay, which
		// leaves the error backoff as it was.
		c.stats.backingOff(req)
		c.queue.AddAfter(req, a.after)
		return true
	}
	if a.release != nil {
		defer a.release()
	}

	if c.trace != nil {
		c.traceMu.Lock() // after the "queue add" of req (add)
		c.emit(trace.Event{Stage: trace.Controller, Verb: "reconcile", Key: req.String(), Outcome: "start"})
		c.traceMu.Unlock()
	}
	start := c.clock.Now()
	c.stats.active.Add(1)
	res, err := c.reconcile(a.ctx, req)
	c.stats.active.Add(-1)
	took := c.clock.Since(start)
	if err != nil {
		c.failed(req, err, took)
		return true
	}
	c.forgetFailures(req)
	switch {
	case res.RequeueAfter > 0:
		// Forget clears req's failure history, so a later failure backs off from
		// the start again.
		c.stats.observe(requeueAfter, took)
		c.queue.Forget(req)
		c.queue.AddAfter(req, res.RequeueAfter)
		c.emit(trace.Event{Stage: trace.Controller, Verb: "reconcile", Key: req.String(), Outcome: "ok", Took: took, RequeueAfter: res.RequeueAfter})
	case res.Requeue:
		// Not Forget: a Request that keeps asking backs off as a failing one does.
		c.stats.observe(requeue, took)
		c.backOff(req)
		c.emit(trace.Event{Stage: trace.Controller, Verb: "reconcile", Key: req.String(), Outcome: "requeue", Took: took})
	default:
		c.stats.observe(success, took)
		c.queue.Forget(req)
		c.emit(trace.Event{Stage: trace.Controller, Verb: "reconcile", Key: req.String(), Outcome: "ok", Took: took})
	}
	return true
}

// reconcile calls the Reconciler, with ReconcileTimeout's deadline if set and
// a logger that names the Request (LogFrom), and turns a panic into an error so that one bad object cannot take the process
// down.
func (c *Controller) reconcile(ctx context.Context, req Request) (res Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			c.stats.panics.Add(1)
			c.log.Error("reconcile panicked", "controller", c.name, "request", req.String(), "panic", p, "stack", string(debug.Stack()))
			err = fmt.Errorf("reconcile %s panicked: %v", req, p)
		}
	}()
	if c.opts.ReconcileTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.opts.ReconcileTimeout)
		defer cancel()
	}
	ctx = withLog(ctx, c.log.With("controller", c.name, "request", req.String())) // LogFrom
	return c.reconciler.Reconcile(ctx, req)
}

// emit hands e to the trace, if there is one.
func (c *Controller) emit(e trace.Event) {
	if c.trace != nil {
		c.trace(e)
	}
}

// waitForCaches waits until every informer the Manager held when this
// controller started has its initial list in its cache (false if ctx ends
// first). A Reconcile reads Listers the controller does not watch, and a cache
// still listing would answer NotFound for objects that exist: a controller that
// deletes what it cannot find would delete what it should keep. It logs the
// caches it waits for, once. controller-runtime's Manager does the same: its
// controllers start only after every informer of the shared cache has synced.
// An informer first asked for by a running Reconcile is not waited for here.
func (c *Controller) waitForCaches(ctx context.Context) bool {
	if c.caches == nil {
		return true
	}
	var waiting []*informer.Informer
	var names []string
	for _, inf := range c.caches() {
		select {
		case <-inf.Listed():
		default:
			waiting = append(waiting, inf)
			names = append(names, inf.Name())
		}
	}
	if len(waiting) == 0 {
		return true
	}
	c.log.Info("controller waits for the caches it may read to list", "controller", c.name, "informers", strings.Join(names, ","))
	for _, inf := range waiting {
		select {
		case <-inf.Listed():
		case <-ctx.Done():
			return false
		}
	}
	return true
}
