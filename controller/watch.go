package controller

import (
	"fmt"
	"slices"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/informer"
)

// Watch connects an informer: each add, update and delete it sees becomes the
// Requests that toRequests returns (nil means the object's own Request). Use a
// mapping to watch other kinds than the one reconciled — a pod's owner, every
// pod matching a deployment's selector:
//
//	add       toRequests(obj)
//	update    toRequests(old) and toRequests(new), each Request once: when an
//	          owner reference or a label changes, the owner that lost the object
//	          is reconciled as well as the one that gained it
//	delete    toRequests(final state): the watch's last object, or, when the
//	          delete was learned from a relist, the last state the cache had
//
// Watch before Run: Run starts the workers once this handler has the informer's
// initial list. Watch while Run runs works too (a watch added when a CRD appears,
// say): the handler starts at once and is given the cache as adds, but the
// workers, already running, do not wait for it, so a Reconcile may read that
// informer's cache before it has synced. Watch after Run has returned is an
// error: nothing would take the Requests. (Silently accepting it was issue 14.)
// The informer itself must run: Watch cannot start it.
func (c *Controller) Watch(inf *informer.Informer, toRequests func(*apiclient.Object) []Request) error {
	if toRequests == nil {
		toRequests = func(o *apiclient.Object) []Request { return []Request{RequestFor(o)} }
	}
	enqueue := func(objs ...*apiclient.Object) {
		var queued []Request // an update's two objects often map to the same Request
		for _, o := range objs {
			for _, r := range toRequests(o) {
				if !slices.Contains(queued, r) {
					queued = append(queued, r)
					c.add(r)
				}
			}
		}
	}
	return c.register(inf, informer.HandlerFuncs{
		AddFunc:    func(o *apiclient.Object, _ bool) { enqueue(o) },
		UpdateFunc: func(old, o *apiclient.Object) { enqueue(old, o) },
		DeleteFunc: func(o *apiclient.Object, _ bool) { enqueue(o) },
	}, c.opts.ResyncPeriod)
}

// WatchWith connects an informer through a handler of the caller's making, for
// controllers that react to transitions (a pod that was Pending and is now
// Running) rather than to every change; the handler calls enqueue with the
// Requests to reconcile. When it may be called is as for Watch.
func (c *Controller) WatchWith(inf *informer.Informer, handler func(enqueue func(Request)) informer.Handler) error {
	return c.register(inf, handler(c.add), 0)
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
