// Package informer keeps a local cache of one resource and tells handlers what
// changed: the Reflector fills a FIFO, the informer pops it into a store, and each
// handler hears of every change on a goroutine of its own.
//
// # Where this sits
//
// The caret line is import order (who may import whom, main_test.go checks it),
// not the order data flows in:
//
//	apiclient ─▶ listwatch ─▶ fifo ─▶ store ─▶ queue ─▶ controller
//	                                                    ^^^^^^^^^^ controller/informer, the cache half
//
// Package controller builds on it (the reconcile loop, the Manager). Everything
// about a cache lives here: what fills it (Options.Source; when nil, a listwatch
// Reflector on Options.Client and Options.Resource, source.go), how objects are
// reshaped on the way in (Options.Transform), how they are indexed
// (Options.Indexers), and how it is read (cache.go; lister.go as values of the
// caller's own type, each object decoded once; ownwrites.go, whether the cache
// shows the process's own writes yet, and waiting until it does).
//
//	Reflector ─▶ Transform ─▶ FIFO ─▶ processLoop: Pop ─▶ store ─▶ listener ─▶ Handler
//	(Source)     sink.go       fifo    informer.go          store    listener.go  handler.go
//
// # Synced and resync
//
// "Synced" is asked of four things along the way; a reader needs the last two.
//
//	listwatch.Reflector.HasSynced   the first LIST reached the FIFO (not yet popped)
//	fifo's HasSynced                every object of the first Replace has been popped
//	Registration.HasSynced          this handler has been given the whole initial list
//	Informer.HasSynced              the FIFO has synced AND every handler registered
//	                                so far has too; WaitForCacheSync waits for it
//
// The informer reads only the FIFO's: when a Pop leaves it synced (or a first LIST
// finds nothing), the informer closes its own channel and queues a synced marker
// behind the initial list in every listener; a listener reaching the marker closes
// its channel. Informer.HasSynced is both, so a controller that waits for it never
// starts workers while a handler is still being told about the initial list
// (client-go's HasSynced does not wait for handlers: kubernetes#113763).
//
// Resync replays the cache to handlers that asked for it, changed or not: a
// safety net for a handler that missed or mishandled a change. Only the informer
// resyncs (the Reflector never calls the FIFO's Resync):
//
//   - AddHandler's resync argument asks for it, per handler; 0 means never.
//     A controller's For handler passes controller.Options.ResyncPeriod, its
//     other handlers 0.
//   - resyncLoop sleeps until the earliest resync a handler is due for (a
//     handler added with a resync wakes it, before Run or after), picks the
//     handlers that are due, and calls the FIFO's Resync, which queues a Sync
//     delta with the stored object for each stored key that is not already
//     queued.
//   - A Sync delta, like a relisted object whose resourceVersion did not change,
//     reaches only the handlers picked at the latest resync (none before the
//     first), as OnUpdate(obj, obj).
//
// # Guarantees
//
//   - Handlers are called in the order the cache changed, each on a goroutine of
//     its own; a slow handler delays only itself, and its backlog is visible
//     (Registration.Backlog). Nothing is dropped.
//   - The store is updated before handlers are told, so a handler that reads the
//     cache sees at least what it is told about.
//   - What Get, List and ByIndex return, and a Lister's values, are the
//     caller's own: copies, which a caller may change without the cache seeing
//     it (cache.go, lister.go). Get, on an Informer or a Lister, answers an
//     object the cache does not hold with a NotFound (apiclient.IsNotFound), as
//     the server and controller-runtime's cache-backed client do; client-go's
//     GetByKey says exists=false, its listers NotFound. Handlers too are given
//     copies: each handler gets its own (listener.go), so that nothing it does
//     reaches the cache — where objects with equal labels share one Labels map
//     (labels.go) — or another handler (TestInformer_a_handler_cannot_corrupt_the_cache).
//   - A delete learned from a relist reaches OnDelete with finalStateUnknown set;
//     it is never an interface{} to type-switch on.
//   - A failed list never replaces the cache and never counts towards sync: the
//     Reflector hands the FIFO only a list that completed (package listwatch), and
//     a list whose Transform fails is refused whole. Until a first list succeeds
//     (a CRD that is not installed yet, a 403) HasSynced stays false and the cache
//     empty; after it, a failed relist leaves the cache as it was and deletes
//     nothing.
//   - Cached objects hold less than the server sent: each object's body (all
//     but kind, apiVersion and metadata) is packed against the body of one
//     object of the resource (pack.go, apiclient.Object.Pack), a list's
//     objects as they are decoded (listwatch.Packer). What any reader gets
//     reads the same (Raw gives the server's bytes without managedFields);
//     10,000 pods took 10.2 MiB of heap where the server sent 24.2 MiB of JSON
//     without managedFields (1.07 KB a pod; 3.2 KB kept whole: README's
//     benchmark section; TestInformer_holds_a_pod_in_less_than_its_bytes_on_the_wire).
//   - Transform runs exactly once on every object that enters the FIFO, deletes
//     and lists included, before it enters; the store and every handler see only
//     transformed objects, and a resync does not transform again.
//   - HasSynced and WaitForCacheSync wait on channels; nothing polls.
//   - Trace lines name the handler they are for ("handler add default/web-1
//     to=podrestart backlog=1"); with no Trace set, nothing is formatted.
//
// # Compared with client-go
//
// informer.go is client-go's tools/cache/shared_informer.go (sharedIndexInformer,
// sharedProcessor, processorListener) and controller.go (processLoop,
// processDeltas). What differs:
//   - HasSynced waits for the handlers (above).
//   - The FIFO is the in-order one (client-go's RealFIFO, its informers' from
//     1.36, InOrderInformers GA), as in client-go today; Options.DeltaFIFO
//     chooses the older way (the controller.Manager chooses for all its
//     informers: ManagerOptions). The list is the cheaper one for the server at
//     hand (Options.List, listwatch.ListCheapest): LIST from Kubernetes 1.33, a
//     streaming list before it, where client-go always asks for a streaming
//     list (WatchListClient, default since v0.35). Where a server ignores
//     sendInitialEvents, the fallback to LIST comes at its first change before
//     the end bookmark, or after a second of silence; client-go waits out the
//     watch's timeout.
//   - The store's resourceVersion (client-go's LastStoreSyncResourceVersion) and
//     informer metrics, as recent client-go has them: StoreResourceVersion is the
//     version the cache has caught up to, moved by watch events, by bookmarks and
//     by the end of each list, which the in-order FIFO queues as Bookmark entries
//     in their place (version.go); ProcessingSeconds times each pop. The Manager
//     exports both, beside the FIFO's depth (client-go's queued items), the
//     slowest handler's backlog, the objects cached, deltas applied by type and
//     synced (controller/manager_metrics.go). What the Reflector has read is
//     listwatch's Health().ResourceVersion; the store lags it by what the FIFO
//     holds.
//   - A handler added after start gets the cache as adds, as in client-go, and its
//     own Registration.HasSynced, as in client-go since 1.27.
//   - Each listener's buffer is a slice that shrinks back when drained, and its
//     length is a metric; client-go's grows without a bound or a signal.
//   - OnDelete has a flag instead of DeletedFinalStateUnknown.
//   - Objects are cached packed (above); client-go caches each one whole, as
//     decoded structs (a typed informer) or maps (a dynamic one).
//   - Transform runs where client-go's does, as objects enter the FIFO, deletes
//     and lists included, but outside the FIFO's lock (client-go calls it under
//     it), and a resync's Sync delta is not transformed again (client-go's is).
//     Options.Transform keeps client-go's rule that a transform be idempotent.
//   - A failed LIST leaves the cache and HasSynced as they were, as in client-go;
//     no empty Replace on a 404.
//   - New with no Source builds the Reflector itself from Options.Client and
//     Options.Resource, and without those Run returns an error; client-go's
//     NewSharedIndexInformer needs its ListerWatcher and has no such default.
//   - One Runner interface for what fills the FIFO, so tests drive an informer with
//     a script (package informertest) and the command with the Reflector.
//   - WaitForOwnWrites (ownwrites.go) is controller-runtime's read-your-own-writes
//     client (v0.25, EnableReadYourWritesConsistency) as one explicit call
//     before a read, on an Informer or a Lister: it waits, bounded by its
//     context, until the cache has observed every write the process began
//     before it, but for the writes Options.OwnWrites stops awaiting (the
//     Manager's: one whose object was deleted since, one not shown
//     controller.StaleWaitLimit after its answer), asked again as the store
//     moves and when the next of them is due. controller-runtime makes every
//     cached read wait; here a read that needs it says so, and the others cost
//     nothing. client-go has no such read; its LastStoreSyncResourceVersion is
//     StoreResourceVersion, and Observed compares against it as client-go's
//     ConsistencyStore does.
//   - Lister[T] is client-go's generated FooLister for any type T of the
//     caller's, with no code generation: an object is decoded into a T on first
//     read and that value kept with the cached object; each read hands out a
//     deep copy of it: 5 µs and 24 allocations for a 5.2 KB pod's metadata,
//     against 145 µs and 564 allocations to decode it each time
//     (BenchmarkLister_Get, 2026-11-25, 2 vCPU, loaded). client-go's cache holds typed objects already, decoded once on
//     arrival whether read or not, and its listers hand out the cache's own
//     pointers: "do not modify" is a rule there, a guarantee here.
package informer
