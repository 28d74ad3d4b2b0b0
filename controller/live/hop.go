package live

import (
	"strings"
	"time"
)

// Hop is one trace line, read: which stage did what to which object. The trace
// is the one narrative of the pipeline (`kubewire --trace` prints the same
// lines); the page is told hops, each with the sentence that explains it and the
// file that does it.
type Hop struct {
	Seq   uint64    `json:"seq"`   // 1 for the first hop the Hub saw
	Time  time.Time `json:"time"`  // when the stage traced it
	MS    float64   `json:"ms"`    // milliseconds since the Hub started
	Stage string    `json:"stage"` // listwatch, fifo, store, handler, queue, controller, apiclient
	Verb  string    `json:"verb"`  // ADD, pop, add, update, reconcile, PATCH, …
	Key   string    `json:"key"`   // the object's namespace/name ("" when the line has none)
	From  string    `json:"from"`  // queue hops: the object whose event queued Key
	Line  string    `json:"line"`  // the trace line as printed
	What  string    `json:"what"`  // one sentence: what just happened
	File  string    `json:"file"`  // the file that does it
}

// parse reads a trace line. The lines follow one shape, "STAGE VERB [DETAIL] KEY
// k=v…" (listwatch/step.go, controller/informer/informer.go, controller/watch.go,
// controller/controller.go, controller/manager_trace.go); what does not follow it
// is kept whole, with no key.
func parse(line string) Hop {
	f := strings.Fields(line)
	h := Hop{Line: line}
	if len(f) == 0 {
		return h
	}
	h.Stage = f[0]
	if len(f) > 1 {
		h.Verb = f[1]
	}
	keyAt := 2
	switch {
	case h.Stage == "fifo" && h.Verb == "pop": // fifo pop Updated demo/web-2 rv=7
		keyAt = 3
	case h.Stage == "apiclient": // apiclient PATCH deployments demo/tools 200 1ms
		keyAt = 3
	}
	if len(f) > keyAt && !strings.Contains(f[keyAt], "=") && !strings.HasPrefix(f[keyAt], "(") {
		h.Key = f[keyAt]
	}
	if h.Stage == "queue" && len(f) > keyAt {
		for _, w := range f[keyAt:] {
			if from, ok := strings.CutPrefix(w, "from="); ok {
				h.From = from
			}
		}
	}
	if h.Stage == "fifo" && h.Verb == "pop" && len(f) > 2 && f[2] == "Bookmark" {
		h.Key = "" // fifo pop Bookmark rv=5: a resourceVersion, no object
	}
	h.What, h.File = explain(h, f)
	return h
}

// explain is the sentence and the file for a hop: the tutorial, one step at a
// time. What one line cannot tell (which FIFO pops, whether an ITEM is of a
// streaming list) the Hub adjusts after (Hub.explainFiles).
func explain(h Hop, f []string) (what, file string) {
	detail := ""
	if len(f) > 2 {
		detail = f[2]
	}
	switch h.Stage {
	case "listwatch":
		switch h.Verb {
		case "LIST":
			return "The Reflector asks the API server for every object (one page of a paged LIST).", "listwatch/list.go"
		case "ITEM":
			return "One object of the initial list arrives; the Reflector collects it until the list is complete.", "listwatch/list.go"
		case "LISTED":
			return "The list is complete: the Reflector replaces the FIFO's view with it, and will watch from its resourceVersion.", "listwatch/reflector.go"
		case "WATCH":
			return "The Reflector opens a watch: one long HTTP response, a JSON event per change.", "listwatch/watch.go"
		case "ADD", "UPDATE", "DELETE":
			return "A watch event arrives and the Reflector hands it to the FIFO.", "listwatch/watch.go"
		case "BOOKMARK":
			return "A bookmark: the server says how far the watch has come; nothing changed.", "listwatch/watch.go"
		case "CLOSED":
			return "The server ended the watch (its timeout passed); the Reflector watches again from where it was.", "listwatch/reflector.go"
		case "ERROR":
			return "A request or a stream failed; the Reflector decides between watching again, listing again and backing off.", "listwatch/reflector.go"
		case "IDLE":
			return "The watch sent nothing for too long: the Reflector drops it and watches again.", "listwatch/watchdog.go"
		case "FALLBACK":
			return "The streaming list did not work: the Reflector lists with LIST instead.", "listwatch/watchlist.go"
		case "BACKOFF":
			return "The Reflector waits before it tries again, longer after each failure.", "listwatch/backoff.go"
		}
		return "The Reflector took a step.", "listwatch/reflector.go"
	case "fifo":
		if detail == "Bookmark" {
			return "Pop reaches a bookmark: the cache has caught up to this resourceVersion.", "controller/informer/version.go"
		}
		if h.Verb == "resync" {
			return "A resync is due: every cached object is handed to the handlers again.", "controller/informer/informer.go"
		}
		return "Pop hands the informer the next entry, in the order the Reflector queued it.", "fifo/inorder.go"
	case "store":
		return "The informer writes the object to its store (the indexer) before any handler hears of it.", "controller/informer/informer.go"
	case "handler":
		return "The informer queues a notification for the handler " + strings.TrimPrefix(field(f, "to="), "to=") + "; each handler has its own goroutine and backlog.", "controller/informer/listener.go"
	case "queue":
		if h.Verb == "dedup" {
			return "The request is already waiting: the workqueue keeps one, so many changes make one reconcile.", "queue/queue.go"
		}
		return "The handler turns the event into a request (namespace/name) and adds it to the workqueue.", "controller/watch.go"
	case "controller":
		if len(f) > 3 && f[3] == "start" {
			return "A worker takes the request from the workqueue and calls Reconcile.", "controller/controller.go"
		}
		return "Reconcile returned; the worker tells the workqueue it is done (or schedules a retry).", "controller/controller.go"
	case "apiclient":
		return "A write goes to the API server: " + h.Verb + " " + detail + ".", "apiclient/request.go"
	}
	return "", ""
}

// field is the word of f that starts with prefix, or "".
func field(f []string, prefix string) string {
	for _, w := range f {
		if strings.HasPrefix(w, prefix) {
			return w
		}
	}
	return ""
}
