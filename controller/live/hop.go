package live

import (
	"time"

	"github.com/kubewire/kubewire/controller/trace"
	"github.com/kubewire/kubewire/listwatch"
)

// Hop is one trace Event as the page shows it: which stage did what to which
// object, the line `kubewire --trace` prints for it, and the sentence that
// explains it with the file that does it.
type Hop struct {
	Seq   uint64    `json:"seq"`   // 1 for the first hop the Hub saw
	Time  time.Time `json:"time"`  // when the stage traced it
	MS    float64   `json:"ms"`    // milliseconds since the Hub started
	Stage string    `json:"stage"` // listwatch, fifo, store, handler, queue, controller, apiclient
	Verb  string    `json:"verb"`  // ADD, pop, add, update, reconcile, PATCH, …
	Key   string    `json:"key"`   // the object's namespace/name ("" when the hop has none)
	From  string    `json:"from"`  // queue hops: the object whose event queued Key
	Line  string    `json:"line"`  // the trace line as printed (trace.Event.String)
	What  string    `json:"what"`  // one sentence: what just happened
	File  string    `json:"file"`  // the file that does it
}

// hopOf reads an Event: its fields, not its text.
func hopOf(e trace.Event) Hop {
	h := Hop{Stage: string(e.Stage), Verb: e.Verb, Key: e.Key, From: e.From, Line: e.String()}
	h.What, h.File = explain(e)
	return h
}

// reflectorSteps explains each of the Reflector's steps.
var reflectorSteps = map[listwatch.Op]struct{ what, file string }{
	listwatch.OpList:     {"The Reflector asks the API server for every object (one page of a paged LIST).", "listwatch/list.go"},
	listwatch.OpItem:     {"One object of the initial list arrives; the Reflector collects it until the list is complete.", "listwatch/list.go"},
	listwatch.OpListed:   {"The list is complete: the Reflector replaces the FIFO's view with it, and will watch from its resourceVersion.", "listwatch/reflector.go"},
	listwatch.OpWatch:    {"The Reflector opens a watch: one long HTTP response, a JSON event per change.", "listwatch/watch.go"},
	listwatch.OpAdd:      {"A watch event arrives and the Reflector hands it to the FIFO.", "listwatch/watch.go"},
	listwatch.OpUpdate:   {"A watch event arrives and the Reflector hands it to the FIFO.", "listwatch/watch.go"},
	listwatch.OpDelete:   {"A watch event arrives and the Reflector hands it to the FIFO.", "listwatch/watch.go"},
	listwatch.OpBookmark: {"A bookmark: the server says how far the watch has come; nothing changed.", "listwatch/watch.go"},
	listwatch.OpClosed:   {"The server ended the watch (its timeout passed); the Reflector watches again from where it was.", "listwatch/reflector.go"},
	listwatch.OpError:    {"A request or a stream failed; the Reflector decides between watching again, listing again and backing off.", "listwatch/reflector.go"},
	listwatch.OpIdle:     {"The watch sent nothing for too long: the Reflector drops it and watches again.", "listwatch/watchdog.go"},
	listwatch.OpFallback: {"The streaming list did not work: the Reflector lists with LIST instead.", "listwatch/watch.go"},
	listwatch.OpBackoff:  {"The Reflector waits before it tries again, longer after each failure.", "listwatch/backoff.go"},
}

// explain is the sentence and the file for a hop: the tutorial, one step at a
// time. What one hop cannot tell (which FIFO pops) the Hub adjusts after
// (Hub.explainFiles).
func explain(e trace.Event) (what, file string) {
	switch e.Stage {
	case trace.Reflector:
		if e.Step.Op == listwatch.OpWatch && e.Step.Initial {
			return "The Reflector opens a watch that starts with every object (a streaming list, sendInitialEvents), then goes on with the changes.", "listwatch/watchlist.go"
		}
		if x, ok := reflectorSteps[e.Step.Op]; ok {
			return x.what, x.file
		}
		return "The Reflector took a step.", "listwatch/reflector.go"
	case trace.FIFO:
		if e.Delta == "Bookmark" {
			return "Pop reaches a bookmark: the cache has caught up to this resourceVersion.", "controller/informer/version.go"
		}
		if e.Verb == "resync" {
			return "A resync is due: every cached object is handed to the handlers again.", "controller/informer/informer.go"
		}
		return "Pop hands the informer the next entry, in the order the Reflector queued it.", "fifo/inorder.go"
	case trace.Store:
		return "The informer writes the object to its store (the indexer) before any handler hears of it.", "controller/informer/informer.go"
	case trace.Handler:
		return "The informer queues a notification for the handler " + e.To + "; each handler has its own goroutine and backlog.", "controller/informer/listener.go"
	case trace.Queue:
		if e.Verb == "dedup" {
			return "The request is already waiting: the workqueue keeps one, so many changes make one reconcile.", "queue/queue.go"
		}
		return "The handler turns the event into a request (namespace/name) and adds it to the workqueue.", "controller/watch.go"
	case trace.Controller:
		if e.Outcome == "start" {
			return "A worker takes the request from the workqueue and calls Reconcile.", "controller/controller.go"
		}
		if e.Verb == "skip" {
			return "The request is not this replica's to reconcile: its object is in another replica's share.", "controller/manager_sharding.go"
		}
		if e.Outcome == "stale" {
			return "The cache " + e.Informer + " does not show yet what this controller wrote when it last reconciled the request: reconciling now would act on a view older than its own work (count a child as missing, undo its own status). The worker skips it and tries again in moments.", "controller/staleguard.go"
		}
		return "Reconcile returned; the worker tells the workqueue it is done (or schedules a retry).", "controller/controller.go"
	case trace.Client:
		if e.Outcome == "sent" {
			return "A write goes to the API server: " + e.Verb + " " + e.Resource + ".", "apiclient/request.go"
		}
		return "The API server answers the write: " + e.Verb + " " + e.Resource + ".", "apiclient/request.go"
	case trace.Informer:
		return "Something failed inside the informer; the next relist repairs the cache.", "controller/informer/informer.go"
	}
	return "", ""
}
