// Package events records Kubernetes Events — the lines `kubectl describe` shows
// under an object ("Normal  Synced  Foo synced successfully") — on behalf of a
// controller, without ever holding up its reconciles.
//
// # Where this sits
//
//	apiclient ─▶ listwatch ─▶ fifo ─▶ store ─▶ queue ─▶ controller
//	                                                    ^^^^^^^^^^ controller/events, beside the reconcile loop
//
// A Reconciler calls Eventf; the Recorder's own goroutine (Run) writes the Event
// to the API server. Eventf only puts a line in a bounded buffer.
//
// # On the wire
//
// An Event is an object of its own, in the namespace of the object it is about
// ("regarding"; "default" for a cluster-scoped one), named
// "<regarding name>.<16 hex digits of the time>" so that names never collide:
//
//	POST /apis/events.k8s.io/v1/namespaces/demo/events
//	{"apiVersion":"events.k8s.io/v1","kind":"Event",
//	 "metadata":{"name":"example-foo.187a9b3c5d6e7f80","namespace":"demo"},
//	 "eventTime":"2026-11-24T03:00:00.000000Z", "type":"Normal", "reason":"Synced",
//	 "action":"Reconcile", "note":"Foo synced successfully",
//	 "reportingController":"kubewire.io/foo", "reportingInstance":"host-1",
//	 "regarding":{"apiVersion":"samplecontroller.k8s.io/v1alpha1","kind":"Foo",
//	              "namespace":"demo","name":"example-foo","uid":"…"}}
//
// The same event again — same object, type, reason, action, note and controller
// — within SeriesWindow of the last one does not make a new object: the first
// repeat turns the Event into a series, a PATCH that sets
// "series":{"count":2,"lastObservedTime":…}, and later repeats raise the count in
// memory, written at most once per FlushInterval and when Run ends. A controller
// that fails the same way every few seconds for an hour leaves one Event with a
// count, not a thousand objects.
//
// Servers that do not serve events.k8s.io/v1 (before 1.19) get core/v1 Events
// (POST /api/v1/namespaces/NS/events: involvedObject, reason, message, source,
// count, firstTimestamp, lastTimestamp; a repeat raises count and
// lastTimestamp). The Recorder learns which the first time it writes: a 404 for
// the events.k8s.io collection that is not about the namespace switches it to
// core/v1 for good. Each API server converts between the two, so `kubectl get
// events` and `kubectl describe` show either.
//
// # Guarantees
//
//   - Eventf never blocks and never fails: an event that finds the buffer full
//     (BufferSize) or its object over the rate limit is dropped and counted
//     (Stats), and a write that fails after its retries is logged and dropped.
//     An Event is a hint for a human, not a record to rely on.
//   - Per object, at most Burst events in a row, then one per RefillEvery (a
//     token bucket per object, for at most 4,096 objects at a time): one object
//     in a loop cannot flood the server or the buffer.
//   - Notes are cut to the API's 1 KiB. Memory is bounded: the buffer, 4,096
//     rate-limit buckets, 8,192 events followed as series (past that, an event is
//     written but starts no series).
//   - Nothing secret: the Recorder writes what it is given; do not put secrets in
//     notes.
//
// # Compared with client-go
//
// client-go's tools/events (EventBroadcaster, EventRecorder) has the same wire
// format and the same series rule (the first repeat makes count 2); it writes
// series updates every 30 minutes (refreshTime) and ends a series after 6
// minutes without a repeat (finishTime). Here a series is written every
// FlushInterval (30 s) while it grows, so `kubectl describe` shows a count that
// is at most 30 s old, at the cost of one PATCH per growing series per 30 s.
// client-go's older tools/record (core/v1) has a per-object spam filter with a
// burst of 25 and a refill of one every 5 minutes, kept here for both APIs, and
// client-go's broadcaster uses an unbounded channel per watcher where this uses
// one bounded buffer. No broadcaster: one Recorder writes to one server; a
// second consumer of events would watch the API like anyone else.
package events
