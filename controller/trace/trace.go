// Package trace is the pipeline's narrative: one Event per hop an object takes —
// the Reflector receives it, the FIFO hands it over, the store keeps it, a
// handler is told, the workqueue takes its Request, a worker reconciles it —
// and one per write the client makes.
//
// # Where this sits
//
// The caret line is import order (main_test.go checks it):
//
//	apiclient ─▶ listwatch ─▶ fifo ─▶ store ─▶ queue ─▶ controller
//	                                                    ^^^^^^^^^^ controller/trace
//
// Every stage emits typed Events to one func(Event), ManagerOptions.Trace. Two
// readers take them: `kubewire --trace` prints String, one line per hop (the
// tutorial's golden files are those lines), and the live page
// (controller/live) reads the fields. Nothing parses the text back: the text is
// one rendering of the Event, for people.
//
// # Cause before effect
//
// Along one object's path an Event comes before what it causes: a watch event's
// listwatch hop before the FIFO has the object, a handler's hop before the
// handler is called, a queue add before the reconcile it starts, and a write's
// "sent" hop before the server has it, so a write's own watch event never comes
// ahead of the write in the trace. The answer comes as a second hop of the same
// write.
//
// # Compared with client-go
//
// client-go has no trace of the pipeline: klog lines at high verbosity,
// different in each component, and events and metrics after the fact.
// controller-runtime logs reconciles. A typed hop per stage is kubewire's.
package trace

import (
	"fmt"
	"strings"
	"time"

	"github.com/kubewire/kubewire/listwatch"
)

// Stage names where a hop happened: the package prefix of its trace line.
type Stage string

// The stages, in the order an object meets them.
const (
	Reflector  Stage = "listwatch"  // the Reflector: LIST, watch, every object received
	FIFO       Stage = "fifo"       // the FIFO hands an entry to the informer (Pop), or replays the cache (resync)
	Store      Stage = "store"      // the informer writes the cache
	Handler    Stage = "handler"    // the informer queues a notification for one handler
	Queue      Stage = "queue"      // a handler adds a Request to a controller's workqueue
	Controller Stage = "controller" // a worker reconciles a Request
	Client     Stage = "apiclient"  // a write to the API server, sent or answered
	Informer   Stage = "informer"   // something went wrong inside an informer
)

// Event is one hop. Stage, Verb and Key say what happened to which object; the
// other fields are set where they mean something (each says where).
type Event struct {
	Stage Stage
	// Verb is what the stage did: the Reflector's Op ("ADD", "LISTED"); "pop" or
	// "resync" (FIFO); "add", "update" or "delete" (Store, Handler); "add" or
	// "dedup" (Queue); "reconcile" or "skip" (Controller); the HTTP method
	// (Client); "error" (Informer).
	Verb string
	// Key is the object's "namespace/name" ("name" when cluster-scoped; the
	// namespace alone for a POST to a collection); "" when the hop is about
	// no object (a LIST, a bookmark).
	Key string
	// Informer names the informer a Reflector, FIFO, Store or Handler hop
	// belongs to ("pods"), or the cache a stale reconcile waits for.
	Informer string

	// Step is the Reflector's step, whole (Reflector).
	Step listwatch.Step
	// Delta is the type of the delta popped: "Added", "Updated", "Bookmark", …
	// (FIFO pop).
	Delta string
	// ResourceVersion is the object's (FIFO pop, Store add and update), the
	// bookmark's, or the lagging cache's (Controller stale).
	ResourceVersion string
	// Size is what the stage holds after the hop: objects in the store (Store),
	// notifications waiting for the handler (Handler), Requests in the queue
	// (Queue), handlers given a resync (FIFO resync).
	Size int
	// To is the handler told (Handler).
	To string
	// From is the object whose event queued Key, when known (Queue).
	From string
	// LowPriority: the add was of an initial list or a resync (Queue).
	LowPriority bool
	// Outcome is how a reconcile stands: "start", "ok", "requeue", "error",
	// "terminal", "dropped", or "stale": not started, a cache lags the
	// controller's own writes (Controller); "sent" or "answered" (Client).
	Outcome string
	// Took is how long the reconcile or the request took (Controller ok and
	// after, Client answered).
	Took time.Duration
	// RequeueAfter is what the reconcile asked for (Controller ok), or how
	// long until a stale one is tried again (Controller stale).
	RequeueAfter time.Duration
	// Awaited is what the cache named by Informer does not show yet of the
	// controller's own writes, its version being ResourceVersion: "rv 15",
	// "demo/web-1 gone" (Controller stale).
	Awaited string
	// Retry is the count of retries so far (Controller error, dropped).
	Retry int
	// Err is what failed (Controller, Informer).
	Err error
	// Resource is what a write was to: "deployments", "pods/status" (Client).
	Resource string
	// Code is the HTTP status of the answer, 0 if none came (Client answered).
	Code int
}

// String is the hop as one line of `kubewire --trace`: the stage, the verb, the
// key and what else the hop carries, as the golden files read.
func (e Event) String() string {
	var b strings.Builder
	switch e.Stage {
	case Reflector:
		return "listwatch " + e.Step.String()
	case FIFO:
		if e.Verb == "resync" {
			fmt.Fprintf(&b, "fifo resync handlers=%d", e.Size)
		} else if e.Delta == "Bookmark" {
			fmt.Fprintf(&b, "fifo pop Bookmark rv=%s", e.ResourceVersion)
		} else {
			fmt.Fprintf(&b, "fifo pop %s %s rv=%s", e.Delta, e.Key, e.ResourceVersion)
		}
	case Store:
		if e.Verb == "delete" {
			fmt.Fprintf(&b, "store delete %s size=%d", e.Key, e.Size)
		} else {
			fmt.Fprintf(&b, "store %s %s rv=%s size=%d", e.Verb, e.Key, e.ResourceVersion, e.Size)
		}
	case Handler:
		fmt.Fprintf(&b, "handler %s %s to=%s backlog=%d", e.Verb, e.Key, e.To, e.Size)
	case Queue:
		fmt.Fprintf(&b, "queue %s %s depth=%d", e.Verb, e.Key, e.Size)
		if e.From != "" {
			b.WriteString(" from=" + e.From)
		}
		switch {
		case e.Verb == "dedup":
			b.WriteString(" (already waiting or being processed)")
		case e.LowPriority:
			b.WriteString(" (low priority: initial list or resync)")
		}
	case Controller:
		e.controller(&b)
	case Client:
		fmt.Fprintf(&b, "apiclient %s %s %s", e.Verb, e.Resource, e.Key)
		if e.Outcome == "sent" {
			b.WriteString(" sent")
		} else {
			fmt.Fprintf(&b, " %d %s", e.Code, e.Took.Round(time.Microsecond))
		}
	case Informer:
		fmt.Fprintf(&b, "informer %s: %v", e.Informer, e.Err)
	default:
		fmt.Fprintf(&b, "%s %s %s", e.Stage, e.Verb, e.Key)
	}
	return b.String()
}

// controller writes a Controller hop.
func (e Event) controller(b *strings.Builder) {
	if e.Verb == "skip" {
		fmt.Fprintf(b, "controller skip %s (not in this replica's shard)", e.Key)
		return
	}
	fmt.Fprintf(b, "controller reconcile %s ", e.Key)
	switch e.Outcome {
	case "start":
		b.WriteString("start")
	case "ok":
		fmt.Fprintf(b, "ok %s", e.Took)
		if e.RequeueAfter > 0 {
			fmt.Fprintf(b, ", requeue after %s", e.RequeueAfter)
		}
	case "requeue":
		fmt.Fprintf(b, "ok %s, requeue (rate-limited)", e.Took)
	case "terminal":
		fmt.Fprintf(b, "terminal error: %v", e.Err)
	case "dropped":
		fmt.Fprintf(b, "dropped after %d retries: %v", e.Retry, e.Err)
	case "stale":
		fmt.Fprintf(b, "skipped: cache %s at rv=%s does not show this controller's own write (%s) yet; again in %s",
			e.Informer, e.ResourceVersion, e.Awaited, e.RequeueAfter)
	case "error":
		fmt.Fprintf(b, "error (retry %d): %v", e.Retry, e.Err)
	default:
		b.WriteString(e.Outcome)
	}
}
