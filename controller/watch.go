package controller

import (
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/informer"
)

// Watch connects an informer: each add, update and delete it sees becomes the
// Requests that toRequests returns (nil means the object's own Request). Use a
// mapping to watch other kinds than the one reconciled — ToOwner for the objects
// a controller owns, every pod matching a deployment's selector:
//
//	add       toRequests(obj)
//	update    toRequests(old) and toRequests(new), each Request once: when an
//	          owner reference or a label changes, the owner that lost the object
//	          is reconciled as well as the one that gained it
//	delete    toRequests(final state): the watch's last object, or, when the
//	          delete was learned from a relist, the last state the cache had
//
// An update passes only if every one of preds passes it (Predicate; none: every
// update passes). Adds of the informer's initial list and resyncs (an update
// whose old and new have the same resourceVersion) are queued at low priority
// (queue/priority.go): after a restart, ten thousand listed objects do not stand
// in front of the one that just changed.
//
// Watch before Run: Run starts the workers once this handler has the informer's
// initial list. Watch while Run runs works too (a watch added when a CRD appears,
// say): the handler starts at once and is given the cache as adds, but the
// workers, already running, do not wait for it, so a Reconcile may read that
// informer's cache before it has synced. Watch after Run has returned is an
// error: nothing would take the Requests. (Silently accepting it was issue 14.)
// The informer itself must run: Watch cannot start it.
func (c *Controller) Watch(inf *informer.Informer, toRequests func(*apiclient.Object) []Request, preds ...Predicate) error {
	if toRequests == nil {
		toRequests = func(o *apiclient.Object) []Request { return []Request{RequestFor(o)} }
		c.mu.Lock()
		if c.primary == nil {
			c.primary = inf
		}
		c.mu.Unlock()
	}
	pass := And(preds...)
	enqueue := func(low bool, objs ...*apiclient.Object) {
		var queued []Request // an update's two objects often map to the same Request
		for _, o := range objs {
			for _, r := range toRequests(o) {
				if !slices.Contains(queued, r) {
					queued = append(queued, r)
					c.add(r, low, o)
				}
			}
		}
	}
	return c.register(inf, informer.HandlerFuncs{
		AddFunc: func(o *apiclient.Object, initialList bool) { enqueue(initialList, o) },
		UpdateFunc: func(old, o *apiclient.Object) {
			if pass(old, o) {
				enqueue(old.Metadata.ResourceVersion == o.Metadata.ResourceVersion, old, o)
			}
		},
		DeleteFunc: func(o *apiclient.Object, _ bool) { enqueue(false, o) },
	}, c.opts.ResyncPeriod)
}

// WatchWith connects an informer through a handler of the caller's making, for
// controllers that react to transitions (a pod that was Pending and is now
// Running) rather than to every change; the handler calls enqueue with the
// Requests to reconcile. When it may be called is as for Watch.
func (c *Controller) WatchWith(inf *informer.Informer, handler func(enqueue func(Request)) informer.Handler) error {
	if c.opts.Trace == nil {
		return c.register(inf, handler(func(r Request) { c.add(r, false, nil) }), 0)
	}
	// With a trace, each queued Request names the object whose event queued it
	// (from=): the handler is called with that object on its listener's
	// goroutine, and enqueue reads it back there. A handler that enqueues later,
	// from a goroutine of its own, gets the last object its listener handled.
	var cause atomic.Pointer[apiclient.Object]
	h := handler(func(r Request) { c.add(r, false, cause.Load()) })
	return c.register(inf, informer.HandlerFuncs{
		AddFunc:    func(o *apiclient.Object, initial bool) { cause.Store(o); h.OnAdd(o, initial) },
		UpdateFunc: func(old, o *apiclient.Object) { cause.Store(o); h.OnUpdate(old, o) },
		DeleteFunc: func(o *apiclient.Object, unknown bool) { cause.Store(o); h.OnDelete(o, unknown) },
	}, 0)
}

// register adds h to inf, and, before Run, keeps its Registration for Run to wait
// on.
func (c *Controller) register(inf *informer.Informer, h informer.Handler, resync time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch c.state {
	case stopped:
		return fmt.Errorf("controller %s: watch of %s after Run returned: nothing would take its Requests", c.name, inf.Name())
	case running:
		c.opts.Log.Info("watch added while running; workers do not wait for its informer to sync", "controller", c.name, "informer", inf.Name())
		inf.AddHandler(c.name, h, resync)
		return nil
	}
	c.regs = append(c.regs, inf.AddHandler(c.name, h, resync))
	return nil
}

// add queues r, at low priority for what is probably unchanged, and traces
// whether the queue took it or it was already waiting (dedup: ten changes before
// a worker gets to it are one reconcile), and which object's event queued it
// (from, when known).
//
// With a trace, add holds traceMu from before the Add until its line is written,
// and a worker takes traceMu before it traces the reconcile start: so the trace
// says "queue add" before "reconcile start" even when a worker takes r at once.
func (c *Controller) add(r Request, low bool, from *apiclient.Object) {
	if c.opts.Trace != nil {
		c.traceMu.Lock()
		defer c.traceMu.Unlock()
	}
	var added bool
	if low {
		added = c.queue.AddLowPriority(r)
	} else {
		added = c.queue.Add(r)
	}
	if c.opts.Trace == nil {
		return
	}
	cause := ""
	if from != nil {
		cause = " from=" + RequestFor(from).String()
	}
	switch after := c.queue.Len(); {
	case added && low:
		c.trace("queue add %s depth=%d%s (low priority: initial list or resync)", r, after, cause)
	case added:
		c.trace("queue add %s depth=%d%s", r, after, cause)
	default:
		c.trace("queue dedup %s depth=%d%s (already waiting or being processed)", r, after, cause)
	}
}
