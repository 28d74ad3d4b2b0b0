// Package apitest holds test doubles for code built on apiclient: a fake Clock, and
// Server, a small Kubernetes API server in memory that either replays a recording
// (faults included) or keeps live objects.
//
// # Where this sits
//
//	apiclient ─▶ listwatch ─▶ fifo ─▶ store ─▶ queue ─▶ controller
//	^^^^^^^^^ (its stand-ins, for the tests of every stage after it)
//
// # Replaying a recording
//
// The reflector's scenario tests (package listwatch) go like this:
//
//	srv := apitest.NewServer(clock)
//	srv.Replay(rec)                       // a recording.Recording: LIST, watches, faults
//	client, _ := srv.Client(apiclient.Options{Clock: clock})
//	go reflector.Run(ctx)                 // talks to srv as to a real API server
//	<-srv.Done()                          // it asked for more than the script holds
//	cancel(); if err := srv.Err(); err != nil { … }   // every request was as scripted
//
// Each request must match the next exchange (method, path, query; timeoutSeconds is
// free), so a scenario checks what the client asked as well as what it did with the
// answers. Bodies are written line by line with a flush after each, which is how a
// watch reaches the client; "close", "cut N" and "stall" end a response the way a
// dying server, a broken proxy and a dead peer do (see package recording).
//
// # Live objects
//
// Without a script the server stores what it is sent and serves GET, LIST, WATCH,
// POST, PUT, PATCH and DELETE with resourceVersions, watch events, label selectors
// (all of them, parsed by apiclient/selector), field selectors on metadata.name and
// metadata.namespace, paging, streaming lists and 410 after Compact. What a
// controller's own writes rely on is modelled as the real server does it:
// metadata.generation is 1 at creation and moves with every write that changes
// anything but metadata and status; a DELETE of an object with finalizers only sets
// deletionTimestamp, and the write that removes the last finalizer deletes it.
// It is deliberately small otherwise: no admission, no defaulting, no garbage
// collection; the main resource accepts status changes (the real one ignores them
// where a status subresource exists); strategic merge patches are applied as JSON
// merge patches (the same thing unless a list of objects with merge keys is
// patched), a server-side apply as a merge patch that creates a missing object —
// field ownership and apply conflicts are not modelled — and a JSON patch's add,
// remove, replace and test ops on members of objects (jsonpatch.go; a failed
// test is a 422, as on the real server).
//
// HoldWatch (hold.go) makes a resource's watches lag until the test releases
// them, while its writes are answered at once: a controller's cache behind its
// own write, on demand. WatchLag (lag.go) does the same from between a client
// and any server, a real one included, holding or delaying the watch's bytes.
//
// # Time
//
// Clock is a fake apiclient.Clock: nothing waits until the test calls Step. A test
// that has to move time waits for the code under test to start its wait first:
// BlockUntilWaiters(n) for "n waits pending", BlockUntilDue(d) for "a wait of d
// from now is pending" (the one to use when abandoned waits may linger).
//
// # Guarantees
//
//   - Server and Clock are safe for concurrent use.
//   - A replayed scenario is deterministic: the server does nothing the script does
//     not say, and holds any request beyond it.
//   - The server never panics on bad input; it answers with a Status, as the real
//     one does. (It aborts a response on purpose, with http.ErrAbortHandler, to play
//     "close" and "cut".)
//
// # Compared with client-go
//
// client-go's tests use fake clientsets (k8s.io/client-go/testing) that bypass HTTP
// entirely, or watch.FakeWatcher, or hand-written httptest handlers. Here every test
// goes over real HTTP and TLS, through the same apiclient code a real cluster sees,
// so the decoder, the chunked streaming and the error mapping are tested too.
package apitest
