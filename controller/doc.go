// Package controller is where the cache meets the user's logic: the reconcile loop
// that turns changes into calls of a Reconciler, and the manager that runs
// informers and controllers in a process. The cache itself is package
// controller/informer.
//
// # Where this sits
//
// The caret line in every doc.go is import order (who may import whom;
// main_test.go checks it), not the path an object takes:
//
//	apiclient ─▶ listwatch ─▶ fifo ─▶ store ─▶ queue ─▶ controller
//	                                                    ^^^^^^^^^^
//
// # Following one object
//
// What each stage holds, and under what name:
//
//	stage                 holds                                      keyed by
//	fifo (Delta)          deltas, each with its object and Key       "namespace/name"
//	store (the cache)     the newest object of each key              "namespace/name"
//	queue (workqueue)     keys only, no objects                      Request
//	controller            one Request at a time, per worker          Request{Namespace, Name}
//
// And the path, with the goroutine each step runs on:
//
//	API server ─▶ Reflector (listwatch)      LIST, then watch: ADDED default/web-1 rv=7
//	  ─▶ FIFO (fifo)                         Delta{Added, "default/web-1", obj}
//	  ─▶ processLoop (informer)              Pop ─▶ store.Put ─▶ one notification per listener
//	  ─▶ listener, one per handler           its own goroutine and buffer
//	  ─▶ handler: Controller.Watch's         RequestFor(obj) ─▶ queue.Add(Request{default, web-1})
//	  ─▶ worker (controller.go)              Get ─▶ Reconcile(ctx, Request) ─▶ Forget / AddRateLimited / AddAfter ─▶ Done
//	                                         Reconcile reads the object back from the store by key
//
// controller/informer is the first half (Reflector to handlers), controller.go
// the second (queue to Reconcile), manager.go the process around them.
//
// # The reconcile loop, and why it is level-based
//
// A Reconciler is given a Request — a name — and not the event. It reads the
// object's current state from the informer's cache and makes the world agree.
// Ten updates that arrive while a Request waits in the queue become one call
// (the queue dedups), a missed event is repaired by the next one, and a restart
// just reconciles everything once. Per Request:
//
//	ok                      Forget (clear its backoff)
//	ok, RequeueAfter d      Forget, AddAfter(d)
//	error                   AddRateLimited, until MaxRetries; then Forget and drop (see below)
//	Terminal(error)         Forget, log: retrying cannot help
//	panic                   recovered, counted, treated as an error
//	every ResyncPeriod      each cached object's Request again, changed or not
//
// Workers start only once every watched informer has synced (informer's doc.go,
// "Synced and resync", says what that means); on shutdown no new Request is taken
// and the ones in flight get ShutdownTimeout to finish, then their context is
// cancelled; one that ignores the cancellation is left running after another
// ShutdownTimeout, and Run returns an error saying so.
//
// # Failure handling
//
// A Reconcile that returns an error is retried after the longer of two delays
// (queue.DefaultLimiter, client-go's defaults):
//
//   - per Request, exponential: the n-th failure in a row waits 5 ms·2ⁿ⁻¹, capped
//     at 1000 s: 5 ms, 10 ms, 20 ms, … 81.92 s at the 15th;
//   - overall, a token bucket: 10 retries per second once a burst of 100 is spent,
//     shared by every Request of the controller (no retry is put further out than
//     1000 s).
//
// With the default MaxRetries (15), a Request is reconciled once and retried 15
// times, about 164 s of backoff in all; its 16th failure in a row drops it: the
// loop calls Forget, logs an error, and counts it (Stats.Dropped,
// kubewire_reconcile_dropped_total). Nothing retries it after that. It is
// reconciled again only when something enqueues it anew: a change to the object
// (any informer event that maps to it), a ResyncPeriod if one is set (off by
// default), or a restart of the process; its backoff then starts again at 5 ms.
// A success at any point, or a Terminal error, clears the count the same way.
//
// # Guarantees
//   - A Request is never reconciled by two workers at once (the queue's guarantee).
//   - Workers never see a half-filled cache: Run waits for every watched
//     informer's HasSynced first.
//   - Manager.Run returns only after every goroutine it started has returned. With
//     leader election, controllers run only while this replica holds the Lease;
//     the informers run always, so a standby takes over with a warm cache.
//
// # Compared with client-go and controller-runtime
//
// controller.go is the worker loop of sample-controller and of
// controller-runtime's internal/controller; manager.go plays controller-runtime's
// manager; the informers are client-go's (controller/informer says how they
// differ). What differs here:
//   - Terminal errors and panic recovery are built in, as in controller-runtime;
//     sample-controller leaves them to the user.
//   - A retry limit (MaxRetries, 15) is kubewire's own: controller-runtime retries
//     a failing Request without a limit, backing off up to 1000 s, and
//     sample-controller likewise retries forever.
//   - Workers wait for the handlers to have the initial list, not only the cache
//     (kubernetes#113763).
package controller
