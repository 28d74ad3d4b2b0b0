package controller

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/controller/metrics"
	"github.com/kubewire/kubewire/queue"
)

// DefaultMaxBackoff is where the per-Request backoff of the default Limiter
// stops doubling: a Request that keeps failing is retried every 5 minutes
// (doc.go, "Failure handling", says why not client-go's 1000 s).
const DefaultMaxBackoff = 5 * time.Minute

// Options tune a Controller. The zero value is usable: one worker, retries
// without a limit, the default Limiter, the real clock, no reconcile timeout,
// 30 s to finish on shutdown.
type Options struct {
	Workers int
	// MaxRetries, when positive, drops a Request whose Reconcile has failed
	// MaxRetries+1 times in a row (one try and MaxRetries retries): it is logged
	// at ERROR and counted in Stats.Dropped. 0 retries without a limit.
	MaxRetries int
	// Limiter spaces the retries of failing Requests; nil means the per-Request
	// backoff from 5 ms doubling to DefaultMaxBackoff, and, over all Requests, 10
	// retries a second after a burst of 100 (queue.DefaultLimiter's bucket),
	// whichever delay is longer.
	Limiter queue.Limiter[Request]
	// Clock times the queue's delays and metrics and the shutdown timeout; nil
	// means RealClock. Use the Manager's Clock here too (clock.go).
	Clock Clock
	// ResyncPeriod, when positive, reconciles every cached object of each watched
	// informer this often even if nothing changed: a safety net for a world that
	// drifted without an event (controller-runtime's SyncPeriod).
	ResyncPeriod time.Duration
	// ReconcileTimeout, when positive, is the deadline of each Reconcile's
	// context (controller-runtime's ReconciliationTimeout). It is wall-clock time
	// (context.WithTimeout): Clock does not move it.
	ReconcileTimeout time.Duration
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
//	                                                  ▲            │ error, Requeue: AddRateLimited
//	                                                  └────────────┘ RequeueAfter: AddAfter
//
// Build it with New, connect informers with Watch, and Run it. Safe for
// concurrent use.
type Controller struct {
	name       string
	reconciler Reconciler
	queue      *queue.Queue[Request]
	opts       Options

	mu       sync.Mutex // guards state, regs and failures
	state    runState
	regs     []*informer.Registration // Run waits for these to sync
	failures map[Request]int          // failures in a row, kept only with MaxRetries

	traceMu sync.Mutex // with a trace: a queue add and its line, one at a time (add)

	// primary is the informer of the controller's own objects, the first one
	// watched without a mapping; admit, set by a sharded Manager's Add, is asked
	// before each reconcile whether this replica may reconcile the Request now
	// (manager_sharding.go).
	primary *informer.Informer
	admit   func(context.Context, Request) (_ context.Context, release func(), ok bool)

	stats stats
}

// runState is where a Controller is in its life: Watch and Run check it.
type runState uint8

const (
	notStarted runState = iota
	running             // Run has been called and has not returned
	stopped             // Run has returned; nothing takes Requests any more
)

// New builds a controller; it does nothing until Run.
func New(name string, r Reconciler, opts Options) *Controller {
	if opts.Workers <= 0 {
		opts.Workers = 1
	}
	if opts.Clock == nil {
		opts.Clock = RealClock{}
	}
	if opts.Limiter == nil {
		opts.Limiter = queue.MaxOf(
			queue.NewExponential[Request](queue.DefaultBaseDelay, DefaultMaxBackoff),
			queue.NewTokenBucket[Request](opts.Clock, queue.DefaultQPS, queue.DefaultBurst, queue.DefaultBucketMaxDelay),
		)
	}
	if opts.ShutdownTimeout <= 0 {
		opts.ShutdownTimeout = 30 * time.Second
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	q := queue.New(queue.Config[Request]{Clock: opts.Clock, Limiter: opts.Limiter})
	c := &Controller{name: name, reconciler: r, queue: q, opts: opts}
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

// Run waits until the handlers its Watch calls registered have each been given
// their informer's initial list, starts the workers, and blocks until ctx is
// done. Then it stops handing out work, gives the reconciles in flight
// ShutdownTimeout to finish, and returns (see Options.ShutdownTimeout for a
// reconcile that hangs). Workers start only after sync: a Reconcile that reads a
// half-filled cache would take missing objects for deleted ones. Run waits for its
// own handlers only, not for every handler of a shared informer: another
// controller's slow handler does not hold this one back. Run is called once.
func (c *Controller) Run(ctx context.Context) error {
	c.mu.Lock()
	if c.state != notStarted {
		c.mu.Unlock()
		return fmt.Errorf("controller %s: Run called twice", c.name)
	}
	c.state = running
	regs := c.regs
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.state = stopped
		c.mu.Unlock()
	}()
	for _, reg := range regs {
		if !reg.WaitForSync(ctx) {
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
	if c.admit != nil {
		admitted, release, ok := c.admit(ctx, req)
		if !ok {
			// Another replica's object, or one no longer cached: a sharded
			// controller reconciles only what its cache holds in its ranges.
			c.queue.Forget(req)
			c.forgetFailures(req)
			c.trace("controller skip %s (not in this replica's shard)", req)
			return true
		}
		defer release()
		ctx = admitted
	}

	if c.opts.Trace != nil {
		c.traceMu.Lock() // after the "queue add" of req (add)
		c.trace("controller reconcile %s start", req)
		c.traceMu.Unlock()
	}
	start := c.opts.Clock.Now()
	c.stats.active.Add(1)
	res, err := c.reconcile(ctx, req)
	c.stats.active.Add(-1)
	took := c.opts.Clock.Since(start)
	c.stats.observe(took, err)
	if err != nil {
		c.failed(req, err)
		return true
	}
	c.forgetFailures(req)
	switch {
	case res.RequeueAfter > 0:
		// Forget clears req's failure history, so a later failure backs off from
		// the start again.
		c.queue.Forget(req)
		c.queue.AddAfter(req, res.RequeueAfter)
		c.trace("controller reconcile %s ok %s, requeue after %s", req, took, res.RequeueAfter)
	case res.Requeue:
		// Not Forget: a Request that keeps asking backs off as a failing one does.
		c.queue.AddRateLimited(req)
		c.stats.requeues.Add(1)
		c.trace("controller reconcile %s ok %s, requeue (rate-limited)", req, took)
	default:
		c.queue.Forget(req)
		c.trace("controller reconcile %s ok %s", req, took)
	}
	return true
}

// reconcile calls the Reconciler, with ReconcileTimeout's deadline if set, and
// turns a panic into an error so that one bad object cannot take the process
// down.
func (c *Controller) reconcile(ctx context.Context, req Request) (res Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			c.stats.panics.Add(1)
			c.opts.Log.Error("reconcile panicked", "controller", c.name, "request", req.String(), "panic", p, "stack", string(debug.Stack()))
			err = fmt.Errorf("reconcile %s panicked: %v", req, p)
		}
	}()
	if c.opts.ReconcileTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.opts.ReconcileTimeout)
		defer cancel()
	}
	return c.reconciler.Reconcile(ctx, req)
}

func (c *Controller) trace(format string, args ...any) {
	if c.opts.Trace != nil {
		c.opts.Trace(fmt.Sprintf(format, args...))
	}
}
