// Package listwatch keeps a local copy of one resource type in step with the API
// server: one LIST to learn what exists, then a ?watch=true stream to learn what
// changes, and the right recovery whenever either fails. Its Reflector writes into a
// Sink — in the pipeline, a FIFO of package fifo — and never stops quietly.
//
// # Where this sits
//
//	apiclient ─▶ listwatch ─▶ fifo ─▶ store ─▶ queue ─▶ controller
//	             ^^^^^^^^^
//
// listwatch reads through an apiclient.ResourceClient and writes *apiclient.Object
// values into a Sink: Add, Update, Delete for watch events, Replace with everything
// after each list. Objects are keyed "namespace/name" (Object.Key), the key every
// later stage uses. It imports neither fifo nor store; their types satisfy Sink.
//
//	r := listwatch.New(client.Resource(apiclient.Pods).Namespace("demo"), queue, listwatch.Options{})
//	go r.Run(ctx)                       // until ctx is done
//	… r.HasSynced(), r.Health() …      // from any goroutine
//
// # States
//
// A Reflector is always in one of four states (Health().State); each arrow is one
// method in reflector.go or watch.go.
//
//	                  listed                rewatch: the server
//	Run ──▶ Listing ─────────▶ Watching ◀──┐ ended it normally
//	         ▲  │  ▲             │  │  │ ▲  │
//	         │  │  │             │  │  └─┼──┘
//	         │  │  └── relist ───┘  │    │
//	         │  │   410 Gone/Expired│    │
//	   retry │  │ backOff   backOff │    │ retry
//	         │  ▼           dropIdle▼    │
//	        BackingOff          BackingOff
//
//	(BackingOff is one state, drawn twice: it goes back to the state that failed.
//	From any state, ctx done ──▶ Stopped.)
//
// Listing: LIST with resourceVersion=0 (the server's watch cache), in pages of
// PageSize, or a streaming list (WatchList); Replace the Sink with the result at the
// list's resourceVersion. A 410 on a continuation page lists everything at once; a
// 410 on the list itself lists the latest from etcd; a streaming list that fails
// before its end becomes a LIST (fallBack).
//
// Watching: watch from the last resourceVersion with allowWatchBookmarks and a
// timeoutSeconds drawn in [5, 10) minutes. Every event, bookmarks included, moves the
// resourceVersion on. A normal end watches again from there, without a LIST; a 410
// (ERROR event or response) lists again, and what vanished meanwhile reaches the Sink
// through Replace; a watch silent for its timeout plus IdleMargin is dropped.
//
// BackingOff: 0.8 s doubling to 30 s with jitter (Backoff), reset after two
// minutes without failure; a Status asking for a longer Retry-After is obeyed. Then
// the state that failed runs again.
//
// # Guarantees
//
//   - Run never gives up and never panics on what the server sends: a malformed or
//     oversized line, an unknown event type, a cut or stalled stream are logged,
//     reported in Health and recovered from. Only ctx stops it.
//   - The Sink sees one Replace per completed list, then the watch's events in
//     order; nothing from a list that did not complete.
//   - Requests carry the selectors given, and nothing the caller did not ask for.
//   - Health, HasSynced and LastSyncResourceVersion are safe from any goroutine.
//   - With a fake Clock and a seeded Rand every wait and timeout is repeatable: the
//     scenario tests replay recordings (testdata/) against golden files of the
//     steps (Step.String).
//
// # Recording
//
// Record captures a LIST and the watch after it from a real server, verbatim and
// with secrets redacted, into the format of package recording; apiclient/apitest
// replays such files.
//
// # Compared with client-go
//
// client-go's Reflector (tools/cache/reflector.go, with tools/pager for paging and
// listwatch.go for the requests) behaves the same where the protocol is concerned:
// resourceVersion=0 first, "not older than" relists, the pager's fall back to a
// full list on an expired continue token, random watch timeouts of 5–10 minutes,
// bookmarks, 410 → relist, the backoff numbers, streaming lists with the
// initial-events-end bookmark and a fall back to LIST. What differs, and why:
//
//   - A watch that breaks — a cut or dropped stream, a malformed line, an error
//     when opening it (other than 410) — is resumed from the last resourceVersion
//     after a backoff. client-go watches again at once after a cut (it cannot tell
//     one from a normal end), and relists after a malformed line (the default
//     MaxInternalErrorRetryDuration is 0) or an unexpected error opening the
//     watch. Nothing was lost — every event up to that resourceVersion was applied
//     — so a LIST would only cost the server, and a server that cuts streams is
//     in trouble and gets a pause.
//   - A dead connection is found by an idle timeout on the reflector's clock
//     (timeout + margin, as kube-rs does) where client-go relies on HTTP/2 pings,
//     which the standard library does not send.
//   - A 410 is relisted at once (client-go waits its backoff); only a 410 that
//     comes before any event of the watch waits, to avoid a LIST loop.
//   - Every step is a Step value with one line of text, for traces and golden
//     files, and Health is one snapshot instead of scattered metrics.
//   - Streaming lists collect into a slice keyed by index rather than a temporary
//     store, since the Sink receives them as one Replace anyway.
package listwatch
