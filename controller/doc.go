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
// # Building a controller
//
// One way, one expression (builder.go), with the Manager supplying everything
// process-wide — the client, the shared informers, the logger, the trace, the
// clock, the metrics and an events Recorder it runs:
//
//	m, _ := controller.NewManager(client, controller.ManagerOptions{Namespace: "shop"})
//	r := &reconciler{client: m.Client(), foos: controller.Lister[Foo](m), events: m.Recorder("example.com/foo")}
//	_, err := controller.New(m, "foo", controller.Options{Workers: 2}).
//		For(Foos, controller.WithPredicates(controller.GenerationChanged)). // what it reconciles
//		Owns(apiclient.Deployments).                                        // what it controls (ChildOf)
//		Watches(apiclient.Secrets, controller.ToIndexed(m.Informer(Foos), "bySecret")). // what else
//		Complete(r)
//	err = m.Run(ctx)
//
// A Go type of your own stands for a resource once (apiclient.TypedObject: a
// Resource method, ObjectMeta embedded); the Lister, the typed client
// (apiclient.Typed), owner references (ChildOf), events, finalizers and status
// take the object and fill in apiVersion and kind themselves.
// bench/operators/kubewire is a whole operator built so, next to its
// controller-runtime twin.
//
// # What a Reconciler may change
//
// Everything it is handed is its own. The cache hands out copies
// (informer.Informer's Get, List and ByIndex copy the object's metadata, a
// Lister a deep copy of the value it decoded once), and no helper changes the
// object it is given: ChildOf builds new metadata, finalizer and status read
// the object and write to the server, status.SetCondition never writes into the
// slice it was given. A Reconciler can change what it read and compare it with
// what it read; the cache does not see either (TestCache_cannot_be_changed_through_what_a_reconcile_reads).
// Handlers (and Watches' mappings) alone are given the cache's own objects, and
// must only read them.
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
//	  ─▶ handler: the For's, Owns', …        RequestFor(obj) ─▶ queue.Add(Request{default, web-1})
//	  ─▶ worker (controller.go)              Get ─▶ Reconcile(ctx, Request) ─▶ Forget / AddRateLimited / AddAfter ─▶ Done
//	                                         Reconcile reads the object back from the store by key
//
// controller/informer is the first half (Reflector to handlers), controller.go
// the second (queue to Reconcile), manager.go the process around them;
// controller/trace names each of these hops, one Event each.
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
//	ok, Requeue             AddRateLimited, no Forget: backs off, but is no error
//	error                   AddRateLimited, without a limit (see below)
//	Terminal(error)         Forget, log: retrying cannot help
//	panic                   recovered, counted, treated as an error
//	every ResyncPeriod      each cached object of the For's Request again, changed or
//	                        not, whatever the predicates say (predicate.go says why)
//
// Each Reconcile's context has a deadline when ReconcileTimeout is set.
//
// Workers start once each handler the controller registered (For, Owns, Watches) has been
// given its informer's initial list (Registration.WaitForSync; informer's doc.go,
// "Synced and resync", says what that means). They wait for this controller's
// handlers only: on an informer shared with another controller, that one's slow
// handler does not hold these workers back. On shutdown no new Request is taken
// and the ones in flight get ShutdownTimeout to finish, then their context is
// cancelled; one that ignores the cancellation is left running after another
// ShutdownTimeout, and Run returns an error saying so.
//
// # What is queued, and in what order
//
// Each watch maps events to Requests — For: the object's own; Owns: its
// controller owner's (ChildOf says how owner references work); Watches: what
// the mapping says (ToIndexed finds objects through an index) — and lets
// updates through only if its predicates pass them (WithPredicates;
// predicate.go: GenerationChanged is the usual one). What is probably
// unchanged — the objects of an informer's initial list, and resyncs — is
// queued at low priority (queue/priority.go), behind every real change: after
// a restart with 10,000 objects, an object that changes is reconciled right
// after the Request in flight, where in one FIFO it waited for 5,000 others
// (priority_test.go). Measured with Reconciles of 47 µs each
// (BenchmarkChange_after_a_restart, 2026-11-24, 2 vCPU): 0.42 ms from the
// watch event to its Reconcile, against 236 ms in one FIFO.
//
// Periodic work has one setting: Options.ResyncPeriod, every cached object of
// the For resource reconciled again each period. A Reconcile that waits on time
// for one object asks for itself with Result.RequeueAfter; that is no setting,
// but its answer.
//
// A controller completed while the Manager runs starts at once: its informers
// are started (or shared, already running), and its workers wait for its own
// handlers to have their informers' initial lists, as before Run. Complete after
// the Manager has stopped is an error: nothing would ever take its Requests.
//
// # Failure handling
//
// A Reconcile that returns an error is retried, without a limit, after the longer
// of two delays (the default Limiter):
//
//   - per Request, exponential: the n-th failure in a row waits 5 ms·2ⁿ⁻¹, capped
//     at DefaultMaxBackoff, 5 min: 5 ms, 10 ms, 20 ms, … 81.92 s at the 15th,
//     163.84 s at the 16th, then 5 min each from the 17th (327.7 s of backoff
//     before the cap);
//   - overall, a token bucket: 10 retries per second once a burst of 100 is spent,
//     shared by every Request of the controller (queue.DefaultLimiter's; under a
//     mass failure it may put a retry up to 1000 s out).
//
// A Request that fails 20 times in a row is retried over 25 min 28 s, and its 21st
// try succeeds (testdata/retry_without_limit.golden); whenever the cause goes away (an admission policy
// lifted, a quota raised), the next retry, at most 5 min later, succeeds. A
// success, or a Terminal error, clears the backoff: the next failure waits 5 ms.
//
// Why 5 min and not client-go's 1000 s (controller-runtime's default): with no
// retry limit, the cap is how late a Request may be once its cause has cleared.
// At 1000 s that is almost 17 minutes, far longer than the old limit ever made
// anything wait (81.92 s, before the drop); at 5 min a Request that never
// succeeds costs one Reconcile per 5 min, 1,000 such Requests 3.3 a second, still
// under the bucket's 10. Give Options.Limiter to choose otherwise.
//
// Dropping is opt-in: with MaxRetries > 0, a Request that fails MaxRetries+1 times
// in a row (Requeue and success end the run) is dropped: the loop calls Forget,
// logs at ERROR ("reconcile failed too often, dropping"), and counts it
// (Stats.Dropped, kubewire_reconcile_dropped_total). Nothing retries it after
// that; it is reconciled again only when something enqueues it anew: a change to
// the object (any informer event that maps to it), a ResyncPeriod if one is set
// (off by default), or a restart of the process. Before issue 14 the default was
// 15: after about 164 s of backoff, failing work was dropped for good.
//
// # Guarantees
//   - A Request is never reconciled by two workers at once (the queue's guarantee).
//   - Workers never see a half-filled cache of an informer watched before Run:
//     Run waits until each of its handlers has the initial list.
//   - Failing work is never dropped unless MaxRetries asks for it.
//   - Manager.Run returns only after every goroutine it started has returned. With
//     leader election, controllers run only while this replica holds the Lease;
//     the informers run always, so a standby takes over with a warm cache.
//   - With sharding (ManagerOptions.Sharding, package sharding), every replica
//     works: a controller reconciles only the objects of its For resource in its
//     replica's hash ranges, and never one another replica is reconciling; its
//     Requests for objects not in its cache are skipped, and a Reconcile's
//     context ends if the replica's Lease renewal lapses. Every informer of a
//     resource some controller reconciles caches this replica's share.
//
// # Compared with client-go and controller-runtime
//
// controller.go is the worker loop of sample-controller and of
// controller-runtime's internal/controller; manager.go plays controller-runtime's
// manager; the informers are client-go's (controller/informer says how they
// differ). What differs here:
//   - Terminal errors and panic recovery are built in, as in controller-runtime;
//     sample-controller leaves them to the user.
//   - Retries have no limit, as in controller-runtime and sample-controller, but
//     the per-Request backoff stops at 5 min, not 1000 s (see Failure handling);
//     MaxRetries, off by default, drops (as some kube-controller-manager
//     controllers do with a maxRetries of their own).
//   - Result.Requeue and Options.ReconcileTimeout are controller-runtime's
//     Requeue and ReconciliationTimeout.
//   - The builder is controller-runtime's (For, Owns, Watches, Complete) with the
//     Manager as the only source of what is process-wide; a type names its
//     resource itself (no Scheme), the cache hands out copies (no DeepCopy
//     rule to remember), and a resync passes the predicates (controller-runtime's
//     SyncPeriod does not pass GenerationChangedPredicate).
//   - Workers wait for the handlers to have the initial list, not only the cache
//     (kubernetes#113763).
//   - Predicates decide updates only, on the object before and after; adds and
//     deletes always pass (controller-runtime's have a function per event type,
//     which is rarely what a user wants for deletes).
//   - Low priority for the initial list and resyncs is controller-runtime v0.23's
//     priority queue, with two FIFOs instead of its B-tree; client-go's workqueue
//     has one FIFO.
package controller
