// Package controller is where the cache meets the user's logic: the informer that
// keeps a cache and tells handlers what changed, the reconcile loop that turns
// changes into calls of a Reconciler, and the manager that runs them in a process.
//
// # Where this sits
//
//	apiclient ─▶ listwatch ─▶ fifo ─▶ store ─▶ queue ─▶ controller
//	                                                    ^^^^^^^^^^
//
// # Following one object
//
//	Reflector (listwatch)   LIST, then watch: ADDED default/web-1 rv=7
//	  └▶ FIFO (fifo)        Delta{Added, default/web-1}
//	      └▶ processLoop    Pop ─▶ store.Add ─▶ one notification per handler
//	          └▶ listener   its own goroutine and buffer ─▶ handler.OnAdd
//	              └▶ Controller.Watch's handler ─▶ queue.Add(Request{default, web-1})
//	                  └▶ worker: Get ─▶ Reconcile(ctx, Request) ─▶ Forget / AddRateLimited / AddAfter ─▶ Done
//
// informer.go is the first half (Reflector to handlers), listener.go the handlers'
// buffers, controller.go the second half (queue to Reconcile), manager.go the
// process around them. The names along the way: a Delta in fifo, an object keyed
// "namespace/name" in store, a Request in queue and here.
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
//	error                   AddRateLimited (5 ms doubling, 10 qps overall) until MaxRetries, then drop and count
//	Terminal(error)         Forget, log: retrying cannot help
//	panic                   recovered, counted, treated as an error
//	every ResyncPeriod      each cached object's Request again, changed or not
//
// Workers start only once every watched informer has synced and its handlers have
// been given the whole initial list; on shutdown no new Request is taken and the
// ones in flight get ShutdownTimeout to finish, then their context is cancelled; one
// that ignores the cancellation is left running after another ShutdownTimeout, and
// Run returns an error saying so.
//
// # Guarantees
//   - Handlers are called in the order the cache changed, each on a goroutine of
//     its own; a slow handler delays only itself, and its backlog is visible
//     (Registration.Backlog, kubewire_informer_handler_backlog). Nothing is dropped.
//   - The store is updated before handlers are told, so a handler that reads the
//     cache sees at least what it is told about.
//   - A delete learned from a relist reaches OnDelete with finalStateUnknown set;
//     it is never an interface{} to type-switch on.
//   - HasSynced and WaitForCacheSync mean the cache holds the initial list and
//     every handler registered so far has been given it. They wait on channels;
//     nothing polls.
//   - A Request is never reconciled by two workers at once (the queue's guarantee).
//   - Manager.Run returns only after every goroutine it started has returned. With
//     leader election, controllers run only while this replica holds the Lease;
//     the informers run always, so a standby takes over with a warm cache.
//
// # Compared with client-go and controller-runtime
//
// informer.go is client-go's tools/cache/shared_informer.go (sharedIndexInformer,
// sharedProcessor, processorListener) and controller.go (processLoop,
// processDeltas); controller.go here is the worker loop of sample-controller and
// of controller-runtime's internal/controller; manager.go plays
// controller-runtime's manager. What differs:
//   - HasSynced waits for the handlers (client-go's does not: kubernetes#113763).
//   - A handler added after start gets the cache as adds, as in client-go, and
//     its own Registration.HasSynced, as in client-go since 1.27.
//   - Each listener's buffer is a slice that shrinks back when drained, and its
//     length is a metric; client-go's grows without a bound or a signal.
//   - OnDelete has a flag instead of DeletedFinalStateUnknown.
//   - Terminal errors, a retry limit and panic recovery are built in, as in
//     controller-runtime; sample-controller leaves them to the user.
//   - One Runner interface for what fills the FIFO, so tests drive an informer with
//     a script and the command drives it with the Reflector.
package controller
