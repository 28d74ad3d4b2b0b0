package controller

import (
	"slices"
	"sync/atomic"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/controller/trace"
)

// watch registers w's handler on inf (Builder.Complete calls it, once per For,
// Owns, Watches and WatchesWith). Each add, update and delete inf sees becomes
// the Requests w maps it to:
//
//	add       toRequests(obj)
//	update    toRequests(old) and toRequests(new), each Request once: when an
//	          owner reference or a label changes, the owner that lost the object
//	          is reconciled as well as the one that gained it
//	delete    toRequests(final state): the watch's last object, or, when the
//	          delete was learned from a relist, the last state the cache had
//
// An update passes only if every one of w's predicates passes it. A resync
// (resync > 0, the For watch's Options.ResyncPeriod: an update whose old and new
// are the same object) passes whatever the predicates say: it is the safety net,
// and a predicate such as GenerationChanged would drop every one. Adds of the
// informer's initial list and resyncs are queued at low priority
// (queue/priority.go): after a restart, ten thousand listed objects do not stand
// in front of the one that just changed.
//
// Before the controller runs, its run waits until this handler has the
// informer's initial list. A controller completed while the Manager runs starts
// with its handlers registered the same way, and waits for them too.
func (c *Controller) watch(inf *informer.Informer, w watch, resync time.Duration) {
	if w.handler != nil {
		c.register(inf, c.handlerOf(w.handler), 0)
		return
	}
	toRequests := w.toRequests
	if toRequests == nil {
		toRequests = func(o *apiclient.Object) []Request { return []Request{RequestFor(o)} }
	}
	pass := And(w.preds...)
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
	c.register(inf, informer.HandlerFuncs{
		AddFunc: func(o *apiclient.Object, initialList bool) { enqueue(initialList, o) },
		UpdateFunc: func(old, o *apiclient.Object) {
			resynced := old.Metadata.ResourceVersion == o.Metadata.ResourceVersion
			if resynced || pass(old, o) {
				enqueue(resynced, old, o)
			}
		},
		DeleteFunc: func(o *apiclient.Object, _ bool) { enqueue(false, o) },
	}, resync)
}

// handlerOf is WatchesWith's handler, given the enqueue it calls. With a
// trace, each queued Request names the object whose event queued it (from=):
// the handler is called with that object on its listener's goroutine, and
// enqueue reads it back there. A handler that enqueues later, from a goroutine
// of its own, gets the last object its listener handled.
func (c *Controller) handlerOf(handler func(enqueue func(Request)) informer.Handler) informer.Handler {
	if c.trace == nil {
		return handler(func(r Request) { c.add(r, false, nil) })
	}
	var cause atomic.Pointer[apiclient.Object]
	h := handler(func(r Request) { c.add(r, false, cause.Load()) })
	return informer.HandlerFuncs{
		AddFunc:    func(o *apiclient.Object, initial bool) { cause.Store(o); h.OnAdd(o, initial) },
		UpdateFunc: func(old, o *apiclient.Object) { cause.Store(o); h.OnUpdate(old, o) },
		DeleteFunc: func(o *apiclient.Object, unknown bool) { cause.Store(o); h.OnDelete(o, unknown) },
	}
}

// register adds h to inf under the controller's name and keeps its
// Registration for run to wait on.
func (c *Controller) register(inf *informer.Informer, h informer.Handler, resync time.Duration) {
	reg := inf.AddHandler(c.name, h, resync)
	c.mu.Lock()
	c.regs = append(c.regs, reg)
	c.mu.Unlock()
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
	if c.trace != nil {
		c.traceMu.Lock()
		defer c.traceMu.Unlock()
	}
	var added bool
	if low {
		added = c.queue.AddLowPriority(r)
	} else {
		added = c.queue.Add(r)
	}
	if c.trace == nil {
		return
	}
	e := trace.Event{Stage: trace.Queue, Verb: "add", Key: r.String(), Size: c.queue.Len(), LowPriority: low}
	if from != nil {
		e.From = RequestFor(from).String()
	}
	if !added {
		e.Verb = "dedup" // already waiting or being processed
	}
	c.emit(e)
}
