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
// The loop alone — a workqueue, a Reconciler, the workers, sample-controller's
// loop without informers — is NewController(name, r, opts, clock, log) and
// Run; whatever is added to its Queue is reconciled (ExampleNewController).
// Complete builds every controller of a Manager with that same constructor,
// then adds what only a Manager has: handlers on its informers that fill the
// queue, the caches the workers wait for, the trace, and the one hook each
// worker asks before a Reconcile whether to reconcile the Request now, later
// or not at all (admit.go) — the sharding gate, then the staleness guard.
// controller.go, the loop, knows of neither.
//
// # The client: one, adopted
//
// NewManager adopts the client it is given (apiclient.Client.Adopt) rather
// than working through a copy of its own: the client itself then waits on the
// Manager's clock, logs to its logger, and tells the Manager of every request
// — the /metrics counts, the RBAC recorder, the staleness guard, the trace.
// m.Client() is that same client. The reason: a copy left the client the
// program made unobserved, and a reconciler holding it (the natural thing:
// it is what crd.Install and everything before NewManager were given) wrote
// around the staleness guard without a word — its writes were neither traced
// nor counted, and its next turn read a stale cache. With adoption there is
// no second client to pick by mistake. The price is that a client has one
// owner: a second NewManager on it is an error, since each Manager would
// count, trace and guard the other's requests as its own; give each Manager
// its own client (apiclient.New, or Derive from one not yet adopted). What
// the client did before it was adopted (crd.Install, say) was nobody's.
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
// Handlers (and so Watches' mappings) are given copies too, each handler its
// own (TestInformer_a_handler_cannot_corrupt_the_cache).
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
//	  ─▶ worker (controller.go)              Get ─▶ admit ─▶ Reconcile(ctx, Request) ─▶ Forget / AddRateLimited / AddAfter ─▶ Done
//	                                         Reconcile reads the object back from the store by key
//
// controller/informer is the first half (Reflector to handlers), controller.go
// the second (queue to Reconcile; admit is the one hook a Manager installs
// there, admit.go), manager.go the process around them;
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
//	a cache lags own write  not reconciled: AddAfter(5 ms, doubling to 1 s); see
//	                        "A stale cache after your own write"
//	every ResyncPeriod      each cached object of the For's Request again, changed or
//	                        not, whatever the predicates say (predicate.go says why)
//
// /metrics counts each way a Request ends: kubewire_reconcile_total{result=
// "success", "requeue_after", "requeue", "error", "terminal" — the Reconcile
// calls — or "stale_skip"}; kubewire_reconcile_backoff_requests is how many
// Requests wait out a backoff now (after an error, a Requeue or a stale skip);
// kubewire_own_writes_abandoned_total{controller,resource} how many of the
// process's own writes no cache showed in time (see "A stale cache after your
// own write").
//
// Each Reconcile's context has a deadline when ReconcileTimeout is set.
//
// Workers start once each handler the controller registered (For, Owns, Watches) has been
// given its informer's initial list (Registration.WaitForSync; informer's doc.go,
// "Synced and resync", says what that means), and every other informer the Manager
// holds has its initial list in its cache (a Reconcile may read any of them through a
// Lister; an informer first asked for inside a running Reconcile is not waited for).
// Of handlers, they wait for this controller's only: on an informer shared with
// another controller, that one's slow handler does not hold these workers back. On shutdown no new Request is taken
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
// # A stale cache after your own write
//
// How does a controller avoid acting on a stale cache right after its own
// write? The question every controller meets, and the most common way one goes
// wrong: it creates a second child, reverts its own status, scales twice. A
// controller reads from its cache, and its cache learns of a write only when
// the write's watch event arrives — milliseconds later on a quiet server,
// seconds on a busy one. A write of its own often brings it straight back:
//
//	turn 1 of web   cache: 0 children ─▶ POST pod (rv 15) ─▶ PATCH web (rv 16)
//	                the web's event (rv 16) arrives ─▶ queue ─▶ turn 2
//	turn 2 of web   the pods cache still stands at 14: 0 children ─▶ POST pod
//	                                                   (a second child)
//	                the pod's event (rv 15) arrives, too late
//
// Being level-based does not help: a level-based Reconciler makes the world
// agree with what it reads, and what it read was behind. example_stale_test.go
// is this controller (a ReplicaSet in miniature), and Example_staleCache runs it
// with its pods watch held back (apitest.Server.HoldWatch): two children for
// one wanted, then, with the guard, one.
//
// The staleness guard (staleguard.go; on unless Options.DisableStaleGuard)
// remembers what each Request's reconciles wrote and waits, before the next
// turn, until the caches show it:
//
//	Reconcile(ctx, R) ─▶ client write with ctx ─▶ answered: pods at rv 15
//	    the Manager (its client's apiclient.Observer, manager_writes.go) records, for
//	    R: "the pods cache must reach 15"
//	next turn of R: does every cache recorded for R show its write?
//	    yes ─▶ forget the record; Reconcile
//	    no  ─▶ skip: no Reconcile; AddAfter 5 ms, doubling, at most 1 s apart;
//	           kubewire_reconcile_total{result="stale_skip"}; a trace hop
//	           ("controller reconcile demo/web skipped: cache pods at rv=14 …"),
//	           explained on the live page
//
// What is recorded, and what is not:
//   - A write is one Create, Update, Patch, Apply or Delete through the
//     Manager's client (the one NewManager adopted, or one Derived from it
//     since) with the reconcile's context (or one derived from it):
//     status.Update and finalizer's writes are. A write with another context
//     (context.Background, an events Recorder's own) is not.
//   - The caches are every informer of the Manager that would hold the written
//     object: its resource (any version), its namespace, its label selector, a
//     field selector on metadata.name or metadata.namespace (any other field
//     cannot be matched here: that informer is not waited for), and with
//     sharding this replica's share. A cache that would not hold it is never
//     waited for: it would never see the write.
//   - A cache shows a write once its StoreResourceVersion is the version the
//     server answered the write with, or later (informer.Observed). A delete the
//     server answers with the object (pods: at the version of its deletion) is
//     such a write; a delete answered with a Status, as kube-apiserver answers
//     for configmaps, deployments and most resources, carries no version: then
//     the cache shows it once it no longer holds an object of that uid
//     (informer.Shows).
//   - Objects the controller never wrote: nothing is recorded, nothing waits.
//   - The record belongs to the object reconciled, by uid. Once that object is
//     gone from the controller's cache (a delete, a relist that found it gone),
//     or is another object of the same name (a new uid), the record is dropped
//     and the turn runs: its writes were for an object that no longer is.
//   - A server whose resourceVersions are not integers (etcd's are; another
//     storage's may be opaque strings, which clients may only compare for
//     equality): no version can be waited for, so writes with one are not
//     guarded; a delete's Status is still waited for by uid.
//   - A write stops being awaited once its object is seen deleted: the cache
//     held it (its uid) after the answer and holds it no more — another
//     writer's delete, a relist without it, a new object of the same name.
//     A uid once deleted never comes back, so that state is later than the
//     write whatever the versions say. (Only a cache with no label selector
//     counts: from one with a selector an object also leaves by a change of
//     its labels, which may be older than the write.)
//   - A write no cache shows StaleWaitLimit (1 min) after its answer is given
//     up on, once and for good: the Request it held back is reconciled on the
//     cache as it is, reads stop waiting for it, and it is counted
//     (kubewire_own_writes_abandoned_total{controller,resource}) and logged
//     once at WARN, naming the controller, the Request, the cache, the object
//     and the write. A cache that cannot move (its watch failing for minutes),
//     or an answer the watch never reaches (a broken server, a proxy that
//     rewrites versions: a write answered at rv 999999999 on a server at 20),
//     must not stop the controller, or its reads, for good. Another writer's
//     later update cannot be told from an earlier state without trusting the
//     answer's version; the bound is what ends such a wait.
//   - While a write has been awaited a second or more, /readyz's detail names
//     it: `ok (awaiting this process's write of pods "demo/web-1" at rv
//     "999999999" for 30s)`, the three oldest, each value quoted.
//
// Skips have their own pacing, not the error Limiter's: a watch event is
// usually a few milliseconds behind the write, and a skip is no failure.
// Through AddRateLimited, as errors go, skips would draw on the token bucket
// every Request of the controller shares — a thousand parents created at once,
// each skipped once, would spend its burst of 100 and put the retries after
// it, real failures' included, up to 90 s out — and would raise the backoff of
// the Request's next real failure.
//
// The cost: per turn, one map lookup under a lock, a uid read from the cache
// and the context that carries the Request: about 1 µs and 2 allocations
// (BenchmarkStaleGuard_turn, 2 shared cores), against tens of µs for the
// cheapest Reconcile; per write, one pass over the Manager's informers and a
// record for each that would hold the object (awaited.go).
//
// Measured on a real kube-apiserver behind apitest.WatchLag
// (stale_integration_test.go), 20 parents asking one child each (-race, 2
// cores shared with the server, 2026-11-25):
//
//	pods watch                guard off                       guard on
//	held (v1.37.2, v1.32.4)   40 children                     20; the second turns skipped
//	1 s late (v1.32.4)        40 created, 20 deleted; 3.5 s   20 created, 0 deleted; 1.7 s
//
// (seconds from the first parent created until every parent has one child).
// How many second turns come before their child shows depends on how busy the
// workers are — a second turn queues behind the first turns of the parents
// created after it: 100 ms late, the guard-off runs made 20 to 23 children; 1 s
// late on v1.37.2, 28. And `kubewire run foo` through a proxy that delays its
// Deployments watch 1 s (v1.37.2), five Foos created and scaled at once: 78
// turns skipped, 25 reconciles, no error, every Deployment scaled.
//
// The guard keeps the next turn from acting on a cache behind the last one.
// Within one turn, a Reconciler that writes and then reads what it wrote asks
// for it: Lister.WaitForOwnWrites(ctx) (or an Informer's) waits, bounded by
// ctx, until the cache shows every write the process began before the call —
// read-your-own-writes, one explicit call before the read; a write seen
// superseded or given up on, as above, is no longer waited for:
//
//	if _, err := pods.Create(ctx, child, apiclient.WriteOptions{}); err != nil { … }
//	if err := children.WaitForOwnWrites(ctx); err != nil { return controller.Result{}, err }
//	mine, err := children.List() // shows the child just created
//
// # The permissions it needs
//
// Manager.Permissions says what RBAC must grant the process (package rbac):
// what the Manager built will do — list and watch of each informer's resource,
// where it caches; an events Recorder's Events; leader election's or
// sharding's Leases — and every request its client was seen to make since
// NewManager (apiclient.RequestInfo names each request's verb, resource,
// subresource and namespace as the API server authorizes it). After a test
// that does the controllers' whole job:
//
//	objs := rbac.Objects("my-operator", rbac.ServiceAccount{Name: "my-operator", Namespace: "ops"}, m.Permissions().All())
//	rbac.WriteYAML(os.Stdout, objs...) // Roles, ClusterRole, their bindings
//
// # Guarantees
//   - A Request is never reconciled by two workers at once (the queue's guarantee).
//   - Workers never see a half-filled cache of an informer watched before Run:
//     Run waits until each of its handlers has the initial list.
//   - With the staleness guard (the default), a Request is not reconciled while
//     a cache of the Manager that would hold an object its earlier reconciles
//     wrote does not show that write, nor shows the object deleted since — for
//     at most StaleWaitLimit after that write's answer, and never again for
//     that write once given up on.
//   - Failing work is never dropped unless MaxRetries asks for it.
//   - Every request made through the client NewManager was given, by anyone,
//     from then on, is the Manager's: counted on /metrics, noted for RBAC,
//     followed by the staleness guard, traced. A client has one Manager.
//   - Manager.Run returns only after every goroutine it started has returned. With
//     leader election, controllers run only while this replica holds the Lease;
//     the informers run always, so a standby takes over with a warm cache.
//   - With sharding (ManagerOptions.Sharding, package sharding), every replica
//     works: a controller reconciles only the objects of its For resource in its
//     replica's hash ranges, and never one another replica is reconciling; its
//     Requests for objects not in its cache are skipped, and a Reconcile's
//     context ends if the replica's Lease renewal lapses. Every informer of a
//     resource some controller reconciles caches this replica's share, whether
//     it was asked for (Informer, Lister, Index) before the controller's For or
//     after: which informers shard is settled when the Manager runs.
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
//   - The staleness guard is client-go 1.36's ConsistencyStore (KEP-5647), which
//     the ReplicaSet, DaemonSet, StatefulSet and Job controllers of
//     kube-controller-manager use by default (feature gates
//     StaleControllerConsistency<Kind>): a record per owner and uid of the
//     newest version written per resource (WroteAt), checked against the
//     informer's LastStoreSyncResourceVersion before each sync (EnsureReady),
//     dropped when the owner is deleted (Clear). There each controller calls the
//     three itself; here every write a reconcile makes is recorded by the
//     Manager's client, and every controller the Manager builds is guarded. A
//     delete answered with a Status is awaited by uid (ConsistencyStore records
//     only versions); a skip is paced by its own backoff (client-go returns it
//     as an error, into the controller's rate limiter); a write is no longer
//     awaited once its object is seen deleted (client-go clears a record only
//     when the owner is deleted), and given up StaleWaitLimit after its
//     answer, counted and named on /readyz (client-go waits as long as it
//     takes); skips are the result stale_skip of kubewire_reconcile_total, in
//     every controller (kube-controller-manager counts them in a metric of
//     each controller's own). Like client-go's, a comparison that cannot be
//     made (opaque versions) does not hold a turn back.
//   - The Manager adopts the client it is given; controller-runtime's builds
//     its own from a rest.Config (manager.GetClient), so the client a program
//     made before it is a second, unobserved one — the seam adoption closes.
//   - WaitForOwnWrites is controller-runtime v0.25's read-your-own-writes client
//     (EnableReadYourWritesConsistency) as one explicit call, on a Lister or an
//     Informer, rather than on every cached read.
package controller
