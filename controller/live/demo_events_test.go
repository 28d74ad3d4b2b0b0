package live

import (
	"errors"
	"time"

	"github.com/kubewire/kubewire/controller/trace"
	"github.com/kubewire/kubewire/listwatch"
)

// DemoEvents are the hops of `kubewire demo` (durations made 1ms), as the
// stages emit them: pod demo/web-2 is created Pending and made Running, which
// makes the podrestart controller restart deployment demo/tools, and is
// deleted. Each of the story's writes is traced when sent, before the watch
// event it causes, and again when answered.
func DemoEvents() []trace.Event {
	const ms = time.Millisecond
	step := func(s listwatch.Step) trace.Event {
		return trace.Event{Stage: trace.Reflector, Verb: string(s.Op), Key: s.Key, Informer: "pods", Step: s}
	}
	pop := func(delta, key, rv string) trace.Event {
		return trace.Event{Stage: trace.FIFO, Verb: "pop", Delta: delta, Key: key, ResourceVersion: rv, Informer: "pods"}
	}
	store := func(verb, key, rv string, size int) trace.Event {
		return trace.Event{Stage: trace.Store, Verb: verb, Key: key, ResourceVersion: rv, Size: size, Informer: "pods"}
	}
	handlers := func(verb, key string) []trace.Event {
		return []trace.Event{{Stage: trace.Handler, Verb: verb, Key: key, To: "podrestart", Size: 1, Informer: "pods"},
			{Stage: trace.Handler, Verb: verb, Key: key, To: "demo", Size: 1, Informer: "pods"}}
	}
	write := func(verb, resource, key, outcome string, code int) trace.Event {
		e := trace.Event{Stage: trace.Client, Verb: verb, Resource: resource, Key: key, Outcome: outcome, Code: code}
		if outcome == "answered" {
			e.Took = ms
		}
		return e
	}
	var events []trace.Event
	add := func(e ...trace.Event) { events = append(events, e...) }
	add(step(listwatch.Step{Op: listwatch.OpWatch, Timeout: 5*time.Minute + 3*time.Second, Initial: true}),
		step(listwatch.Step{Op: listwatch.OpItem, Key: "demo/web-1", ResourceVersion: "4"}),
		step(listwatch.Step{Op: listwatch.OpBookmark, ResourceVersion: "5", Initial: true}),
		step(listwatch.Step{Op: listwatch.OpListed, ResourceVersion: "5", Items: 1}),
		pop("Replaced", "demo/web-1", "4"), store("add", "demo/web-1", "4", 1))
	add(handlers("add", "demo/web-1")...)
	add(trace.Event{Stage: trace.FIFO, Verb: "pop", Delta: "Bookmark", ResourceVersion: "5", Informer: "pods"},
		write("POST", "pods", "demo", "sent", 0),
		step(listwatch.Step{Op: listwatch.OpAdd, Key: "demo/web-2", ResourceVersion: "6"}),
		write("POST", "pods", "demo", "answered", 201),
		pop("Added", "demo/web-2", "6"), store("add", "demo/web-2", "6", 2))
	add(handlers("add", "demo/web-2")...)
	add(write("PATCH", "pods/status", "demo/web-2", "sent", 0),
		step(listwatch.Step{Op: listwatch.OpUpdate, Key: "demo/web-2", ResourceVersion: "7"}),
		write("PATCH", "pods/status", "demo/web-2", "answered", 200),
		pop("Updated", "demo/web-2", "7"), store("update", "demo/web-2", "7", 2))
	add(handlers("update", "demo/web-2")...)
	add(trace.Event{Stage: trace.Queue, Verb: "add", Key: "demo/tools", Size: 1, From: "demo/web-2"},
		trace.Event{Stage: trace.Controller, Verb: "reconcile", Key: "demo/tools", Outcome: "start"},
		write("PATCH", "deployments", "demo/tools", "sent", 0),
		write("PATCH", "deployments", "demo/tools", "answered", 200),
		trace.Event{Stage: trace.Controller, Verb: "reconcile", Key: "demo/tools", Outcome: "ok", Took: ms},
		write("DELETE", "pods", "demo/web-2", "sent", 0),
		step(listwatch.Step{Op: listwatch.OpDelete, Key: "demo/web-2", ResourceVersion: "9"}),
		write("DELETE", "pods", "demo/web-2", "answered", 200),
		pop("Deleted", "demo/web-2", "9"), store("delete", "demo/web-2", "", 1))
	add(handlers("delete", "demo/web-2")...)
	return events
}

// MoreEvents are hops of every other kind the pipeline emits, which the demo
// does not: for the tests that every hop is explained.
func MoreEvents() []trace.Event {
	step := func(s listwatch.Step) trace.Event {
		return trace.Event{Stage: trace.Reflector, Verb: string(s.Op), Key: s.Key, Informer: "pods", Step: s}
	}
	boom := errors.New("boom")
	return []trace.Event{
		step(listwatch.Step{Op: listwatch.OpList, Limit: 500}),
		step(listwatch.Step{Op: listwatch.OpItem, Key: "demo/web-1", ResourceVersion: "4"}),
		step(listwatch.Step{Op: listwatch.OpWatch, ResourceVersion: "9", Timeout: time.Minute}),
		step(listwatch.Step{Op: listwatch.OpClosed, ResourceVersion: "9", Items: 3}),
		step(listwatch.Step{Op: listwatch.OpError, Err: boom, Next: "relist"}),
		step(listwatch.Step{Op: listwatch.OpIdle, Timeout: 5 * time.Minute}),
		step(listwatch.Step{Op: listwatch.OpFallback, Err: boom}),
		step(listwatch.Step{Op: listwatch.OpBackoff, Wait: time.Second}),
		step(listwatch.Step{Op: listwatch.OpSkip, Err: boom}),
		{Stage: trace.FIFO, Verb: "resync", Size: 1, Informer: "pods"},
		{Stage: trace.Queue, Verb: "dedup", Key: "demo/tools", Size: 1, From: "demo/web-2"},
		{Stage: trace.Queue, Verb: "add", Key: "demo/tools", Size: 1, From: "demo/web-2", LowPriority: true},
		{Stage: trace.Controller, Verb: "reconcile", Key: "demo/tools", Outcome: "error", Retry: 1, Err: boom},
		{Stage: trace.Controller, Verb: "reconcile", Key: "demo/tools", Outcome: "ok", Took: time.Millisecond, RequeueAfter: 5 * time.Second},
		{Stage: trace.Controller, Verb: "reconcile", Key: "demo/tools", Outcome: "requeue", Took: time.Millisecond},
		{Stage: trace.Controller, Verb: "reconcile", Key: "demo/tools", Outcome: "terminal", Err: boom},
		{Stage: trace.Controller, Verb: "reconcile", Key: "demo/tools", Outcome: "dropped", Retry: 5, Err: boom},
		{Stage: trace.Controller, Verb: "skip", Key: "demo/other"},
		{Stage: trace.Controller, Verb: "reconcile", Key: "demo/tools", Outcome: "stale", Informer: "deployments.apps", ResourceVersion: "14", Awaited: "rv 15", RequeueAfter: 5 * time.Millisecond},
		{Stage: trace.Informer, Verb: "error", Informer: "pods", Err: boom},
	}
}
