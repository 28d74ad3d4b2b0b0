package informer

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/trace"
	"github.com/kubewire/kubewire/fifo"
	"github.com/kubewire/kubewire/store"
)

// Informer keeps a cache of one resource and tells handlers what changes:
//
//	Reflector ─▶ FIFO ─▶ processLoop: Pop ─▶ store ─▶ listeners ─▶ handlers
//
// The Reflector (package listwatch) writes what the API server says into the FIFO;
// processLoop pops it, applies it to the store, and hands one notification to each
// handler's listener. The store is the cache: Get and List read it, never the
// server.
//
// Build one with New, add handlers, Run it. Safe for concurrent use.
type Informer struct {
	name  string
	fifo  fifo.Queue[*apiclient.Object]
	store *store.Store[*apiclient.Object]
	// source fills the FIFO, through entrySink (sink.go); it is built by the
	// Options' Source, or by default a Reflector (source.go).
	source Runner

	transform func(*apiclient.Object) (*apiclient.Object, error)
	labels    labelSets // shared label maps of cached objects (labels.go)
	packer    packer    // cached objects kept packed (pack.go)
	clock     apiclient.Clock
	trace     func(trace.Event)

	mu        sync.Mutex
	listeners []*listener
	started   bool
	runCtx    context.Context // set by Run; listeners added later start under it
	wg        sync.WaitGroup  // the listeners' goroutines
	// cacheSynced is closed once the initial list has been popped into the store
	// and handed to the listeners: the informer's half of HasSynced (doc.go).
	cacheSynced chan struct{}
	resyncing   []*listener   // listeners whose resync is under way
	resyncWake  chan struct{} // buffered(1): a handler with a resync was added (resyncLoop)
	events      eventCounts
	progress    progress                               // the store's resourceVersion and the time per pop (version.go)
	ownWrites   func(context.Context) (Awaited, error) // Options.OwnWrites (ownwrites.go)
	// held is what entrySink.Held handed back during the list under way; only the
	// source's goroutine touches it (sink.go).
	held map[*apiclient.Object]struct{}
}

// Runner is what fills an informer's FIFO and keeps it in step with the server:
// a listwatch.Reflector. Run blocks until ctx is done.
type Runner interface {
	Run(ctx context.Context) error
}

// New builds an informer from its parts. Most callers use
// controller.Manager.Informer, which builds the listwatch Reflector as Source; a
// hand-built informer may set Client and Resource instead and get one too.
func New(opts Options) *Informer {
	if opts.Name == "" {
		opts.Name = opts.Resource.String()
	}
	inf := &Informer{name: opts.Name, resyncWake: make(chan struct{}, 1), transform: opts.Transform, clock: opts.Clock, trace: opts.Trace, cacheSynced: make(chan struct{}), progress: newProgress(), ownWrites: opts.OwnWrites}
	if inf.clock == nil {
		inf.clock = apiclient.RealClock{}
	}
	key := store.DeletionHandlingKey(store.MetaKey[*apiclient.Object])
	indexers := store.Indexers[*apiclient.Object]{store.NamespaceIndex: store.IndexByNamespace[*apiclient.Object]}
	for name, f := range opts.Indexers {
		indexers[name] = f
	}
	inf.store = store.New(key, indexers)
	if opts.DeltaFIFO {
		inf.fifo = fifo.NewDeltaFIFO(fifo.KeyFunc[*apiclient.Object](key), inf.store)
	} else {
		inf.fifo = fifo.NewInOrderFIFO(fifo.KeyFunc[*apiclient.Object](key), inf.store)
	}
	inf.source = source(opts)(entrySink{inf.fifo, inf})
	return inf
}

// Registration is a handler's place on the informer.
type Registration struct{ l *listener }

// HasSynced reports whether the handler has been given every object of the
// initial list.
func (r *Registration) HasSynced() bool { return r.l.HasSynced() }

// Backlog is how many notifications wait for the handler: a handler that cannot
// keep up shows here, and in the informer's metrics.
func (r *Registration) Backlog() int { return r.l.Backlog() }

// WaitForSync blocks until HasSynced, or until ctx is done (false): a controller
// waits on its own handlers this way, not on every handler of a shared informer
// (WaitForCacheSync). It waits on a channel, never polls.
func (r *Registration) WaitForSync(ctx context.Context) bool {
	select {
	case <-r.l.synced:
		return true
	case <-ctx.Done():
		return false
	}
}

// AddHandler registers h under name, which names it in trace lines ("handler add
// default/web-1 to=podrestart"); "" names it by its place, "#0" for the first. With
// resync > 0, h also gets an OnUpdate(obj, obj) for every cached object each
// resync period (0: never); its first resync is due one period after it was
// added, whenever that was. A handler added after Run first gets the whole
// current cache as adds (initialList true).
func (inf *Informer) AddHandler(name string, h Handler, resync time.Duration) *Registration {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	if name == "" {
		name = fmt.Sprintf("#%d", len(inf.listeners))
	}
	l := newListener(name, h, resync)
	if resync > 0 {
		l.nextSync = inf.clock.Now().Add(resync)
		select { // the loop may be waiting for a later resync, or for none
		case inf.resyncWake <- struct{}{}:
		default:
		}
	}
	inf.listeners = append(inf.listeners, l)
	if inf.started {
		// Late joiner: replay the cache, then mark it synced if the informer is.
		for _, obj := range inf.store.List() {
			l.add(notification{kind: addNotification, obj: obj, flag: true})
		}
		if closed(inf.cacheSynced) {
			l.add(notification{kind: syncedMarker})
		}
		inf.startListener(l)
	}
	return &Registration{l: l}
}

// Run starts the source and the handlers, and processes the FIFO until ctx is
// done; then it closes the FIFO and waits for every goroutine it started.
func (inf *Informer) Run(ctx context.Context) error {
	inf.mu.Lock()
	if inf.started {
		inf.mu.Unlock()
		return fmt.Errorf("informer %s: already started", inf.name)
	}
	inf.started, inf.runCtx = true, ctx
	for _, l := range inf.listeners {
		inf.startListener(l)
	}
	inf.mu.Unlock()

	sourceDone := make(chan error, 1)
	go func() { // owned by Run: waited for below
		sourceDone <- inf.source.Run(ctx)
		// A source that stops (it failed, or ctx is done) ends the informer: close
		// the FIFO so processLoop hands out what is left and returns.
		inf.fifo.Close()
	}()
	resyncCtx, stopResync := context.WithCancel(ctx)
	resyncDone := make(chan struct{})
	go func() { defer close(resyncDone); inf.resyncLoop(resyncCtx) }() // likewise; stopped with processLoop
	err := inf.processLoop(ctx)
	stopResync()
	// processLoop returns when ctx is done or the source stopped; either way the
	// source is stopping and closes the FIFO itself. Closing it here first would
	// make the reflector's last few events (already read off the wire) fail as
	// "fifo: closed", a warning for nothing.
	srcErr := <-sourceDone
	<-resyncDone
	inf.wg.Wait()
	if err == nil {
		err = srcErr
	}
	if ctx.Err() != nil {
		return nil // a requested stop is not a failure
	}
	return err
}

// resyncLoop sleeps until the earliest resync any handler is due for, picks the
// handlers that are due, and asks the FIFO to replay the cache to them (Sync
// deltas, delivered only to the handlers picked). A handler added with a resync,
// before Run or after, wakes it to look again; without any, it waits for one.
func (inf *Informer) resyncLoop(ctx context.Context) {
	for {
		var wait <-chan time.Time // nil: no handler wants a resync yet
		if next, ok := inf.nextResync(); ok {
			wait = inf.clock.After(max(next.Sub(inf.clock.Now()), 0))
		}
		select {
		case <-ctx.Done():
			return
		case <-inf.resyncWake:
			continue
		case <-wait:
		}
		now := inf.clock.Now()
		inf.mu.Lock()
		inf.resyncing = inf.resyncing[:0]
		for _, l := range inf.listeners {
			if l.dueForResync(now) {
				inf.resyncing = append(inf.resyncing, l)
			}
		}
		due := len(inf.resyncing)
		inf.mu.Unlock()
		if due > 0 {
			inf.emit(trace.Event{Stage: trace.FIFO, Verb: "resync", Size: due})
			if err := inf.fifo.Resync(); err != nil {
				inf.emit(trace.Event{Stage: trace.Informer, Verb: "error", Err: fmt.Errorf("resync: %w", err)})
			}
		}
	}
}

// nextResync is the earliest time a handler's resync is due, if any wants one.
func (inf *Informer) nextResync() (time.Time, bool) {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	var next time.Time
	for _, l := range inf.listeners {
		if at, ok := l.resyncDue(); ok && (next.IsZero() || at.Before(next)) {
			next = at
		}
	}
	return next, !next.IsZero()
}

// startListener runs a listener's goroutine under Run's context; called with mu held.
func (inf *Informer) startListener(l *listener) {
	inf.wg.Add(1)
	go func() { // owned by Run, which waits on inf.wg
		defer inf.wg.Done()
		l.run(inf.runCtx)
	}()
}

// processLoop pops the FIFO until ctx is done. A failed process (a store index
// function failing, say) is logged through the trace and the loop goes on: the
// next relist repairs the cache.
func (inf *Informer) processLoop(ctx context.Context) error {
	for {
		err := inf.fifo.Pop(ctx, inf.process)
		switch {
		case ctx.Err() != nil:
			return nil
		case err == fifo.ErrClosed:
			return nil
		case err != nil:
			inf.emit(trace.Event{Stage: trace.Informer, Verb: "error", Err: err})
		}
		inf.markSyncedOnce()
	}
}

// process applies one key's deltas to the store and notifies the handlers. It runs
// under the FIFO's lock (see fifo.Pop), so it must not touch the FIFO.
func (inf *Informer) process(deltas fifo.Deltas[*apiclient.Object], initial bool) error {
	start := inf.clock.Now()
	defer func() { inf.progress.latency.Observe(inf.since(start)) }()
	for _, d := range deltas {
		if err := inf.apply(d, initial); err != nil {
			return err
		}
	}
	return nil
}

// apply is one delta: the store first, then the handlers, so that a handler that
// reads the cache sees at least what it is told about.
func (inf *Informer) apply(d fifo.Delta[*apiclient.Object], initial bool) error {
	if d.Type == fifo.Bookmark {
		if inf.trace != nil {
			inf.emit(trace.Event{Stage: trace.FIFO, Verb: "pop", Delta: "Bookmark", ResourceVersion: d.ResourceVersion})
		}
		inf.progress.moved(d)
		return nil // nothing to store
	}
	obj := d.Object
	inf.events.count(d.Type)
	// Every trace hop is guarded: building one (a Len under the store's lock, the
	// delta type's name) costs time even when nobody reads it.
	tracing := inf.trace != nil
	if tracing {
		inf.emit(trace.Event{Stage: trace.FIFO, Verb: "pop", Delta: d.Type.String(), Key: d.Key, ResourceVersion: obj.Metadata.ResourceVersion})
	}
	// The store is written under d.Key: the FIFO keyed the object already, and
	// keying it again would cost a string per delta.
	if d.Type == fifo.Deleted {
		old, exists := inf.store.GetByKey(d.Key)
		inf.store.DeleteKey(d.Key)
		inf.progress.moved(d) // before the handlers hear of it
		if exists {
			obj = newest(old, obj, d.Tombstone != nil)
		}
		if tracing {
			inf.emit(trace.Event{Stage: trace.Store, Verb: "delete", Key: d.Key, Size: inf.store.Len()})
		}
		inf.notify(d.Key, notification{kind: deleteNotification, obj: obj, flag: d.Tombstone != nil}, false)
		return nil
	}
	old, exists := inf.store.GetByKey(d.Key)
	if err := inf.store.Put(d.Key, obj); err != nil {
		return err
	}
	inf.progress.moved(d)
	if !exists {
		if tracing {
			inf.emit(trace.Event{Stage: trace.Store, Verb: "add", Key: d.Key, ResourceVersion: obj.Metadata.ResourceVersion, Size: inf.store.Len()})
		}
		inf.notify(d.Key, notification{kind: addNotification, obj: obj, flag: initial}, false)
		return nil
	}
	// An update that carries the same resourceVersion is no change: a Sync from
	// Resync, or a relist re-listing an object as it was. Only handlers that asked
	// for resyncs hear of it.
	resync := d.Type == fifo.Sync || old.Metadata.ResourceVersion == obj.Metadata.ResourceVersion
	if tracing {
		inf.emit(trace.Event{Stage: trace.Store, Verb: "update", Key: d.Key, ResourceVersion: obj.Metadata.ResourceVersion, Size: inf.store.Len()})
	}
	inf.notify(d.Key, notification{kind: updateNotification, old: old, obj: obj}, resync)
	return nil
}

// newest is what a delete handler should see: the watch's final object, or for a
// relist's tombstone the cached object, which is at least as new as the FIFO's.
func newest(cached, deleted *apiclient.Object, tombstone bool) *apiclient.Object {
	if tombstone {
		return cached
	}
	return deleted
}

// notify hands n, about the object stored under key, to every listener, or for a
// resync only to those whose resync is under way.
//
// With a trace, each listener's line is written before it is handed n, so the
// trace tells cause before effect (the handler's "queue add" comes after its
// "handler update"), and without the lock: a trace that takes its time (a slow
// terminal; the live page's step mode, which waits for a click) must not hold
// up AddHandler or the Handlers a metrics scrape reads. A handler added in
// between is not handed n: it replays the store, which holds n's change already.
func (inf *Informer) notify(key string, n notification, resync bool) {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	targets := inf.listeners
	if resync {
		targets = inf.resyncing
	}
	if inf.trace != nil {
		targets = slices.Clone(targets)
		inf.mu.Unlock()
		for _, l := range targets {
			inf.emit(trace.Event{Stage: trace.Handler, Verb: kindName(n.kind), Key: key, To: l.name, Size: l.Backlog() + 1})
		}
		inf.mu.Lock()
	}
	for _, l := range targets {
		l.add(n)
	}
}

// markSyncedOnce hands every listener the synced marker the first time the FIFO
// reports the initial list fully popped.
func (inf *Informer) markSyncedOnce() {
	if !inf.fifo.HasSynced() {
		return
	}
	inf.mu.Lock()
	defer inf.mu.Unlock()
	if closed(inf.cacheSynced) {
		return
	}
	close(inf.cacheSynced)
	for _, l := range inf.listeners {
		l.add(notification{kind: syncedMarker})
	}
}
