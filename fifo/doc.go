// Package fifo is where events wait between the reflector and the informer: the
// reflector writes what the API server said, the informer pops it, applies it to the
// store and calls the event handlers. Two queues do this, with one interface ([Queue]):
// [DeltaFIFO], which groups what happened by object, and [InOrderFIFO], which keeps
// every event on its own in arrival order.
//
// # Where this sits
//
//	apiclient ─▶ listwatch ─▶ fifo ─▶ store ─▶ queue ─▶ controller
//	                          ^^^^
//
// listwatch writes through [Sink]: Add, Update and Delete for watch events, Replace
// after every LIST. The informer (package controller/informer) calls Resync on its resync
// timer, and Pop in a loop and, inside the process function, applies each [Delta] to the store
// (package store), which the FIFO reads back through [KnownObjects] to find deletions.
// A Delta carries the object's key, "namespace/name", the same key the store files it
// under and the work queue (package queue) hands to Reconcile.
//
// # Deltas
//
// A [Delta] is one thing that happened to one object: Added, Updated, Deleted (watch
// events), Replaced (listed by a LIST) or Sync (put back by Resync). Its Object is
// always a T. A Deleted delta that the queue made up, because a relist no longer lists
// an object, also carries a [DeletedFinalStateUnknown] tombstone: the object was
// deleted while the watch was down, and Object is only the last state anyone saw.
//
// # DeltaFIFO
//
// DeltaFIFO queues keys; under each key it keeps every delta since the key was queued,
// oldest first. Pop hands all of one key's deltas to the process function at once.
//
//   - A key keeps its place: a delta for a queued key joins it, wherever it stands.
//   - Deltas are never merged, with one exception: two Deleted in a row become one,
//     keeping the one that is not a tombstone (it has the true final state); of two
//     watch deletes, the newer.
//   - Delete of a key that is neither queued nor in the store is dropped: nothing to
//     delete.
//   - Replace(list, rv) queues Replaced for every listed object; then, for every key
//     queued or in the store that list does not name, a Deleted with a tombstone.
//   - Resync queues Sync, with the stored object, for every stored key not queued.
//
// # InOrderFIFO
//
// InOrderFIFO queues deltas, not keys: one entry per write, popped one at a time in
// the order they came. Nothing is grouped or merged and no delete is dropped. Replace
// queues the made-up deletions first and then the Replaced entries; Resync skips any
// key that has an entry queued.
//
// # A Replace with missing keys, worked through
//
// Say the store holds a@1, b@1 and c@1 (keys "default/a" and so on, @ is the
// resourceVersion); the queue still holds "Updated b@2" and "Added d@1", not yet
// popped; the watch breaks, and the relist returns a@3 and e@1. Replace([a@3, e@1]):
//
//   - b and d are queued but not listed: each gets a Deleted tombstone whose Obj is
//     its newest queued object (b@2, d@1).
//   - c is in the store, not listed and not queued: it gets a Deleted tombstone whose
//     Obj is the stored c@1.
//   - a and e are listed: each gets a Replaced.
//
// DeltaFIFO pops five keys: b and d, which were queued and keep their places, then the
// listed keys new to the queue in list order, then the keys found only in the store,
// in sorted order:
//
//	default/b: Updated b@2, Deleted b@2 (final state unknown)
//	default/d: Added d@1, Deleted d@1 (final state unknown)
//	default/a: Replaced a@3
//	default/e: Replaced e@1
//	default/c: Deleted c@1 (final state unknown)
//
// InOrderFIFO pops seven entries: what was queued, then the deletions (queued keys in
// queue order, then store-only keys sorted), then the list in list order:
//
//	Updated b@2
//	Added d@1
//	Deleted b@2 (final state unknown)
//	Deleted d@1 (final state unknown)
//	Deleted c@1 (final state unknown)
//	Replaced a@3
//	Replaced e@1
//
// After either is drained into the store, the store holds exactly a@3 and e@1: what
// the LIST said. Example_replace prints both; the model tests check that property after
// every random relist.
//
// # Why client-go moved to the in-order FIFO
//
// Feed both queues the watch events "Added a@1, Added b@2, Updated a@3"
// (Example_inOrder). DeltaFIFO pops a first with both of its deltas, so the store goes
// from {} to {a@3} to {a@3, b@2}. The server never was in state {a@3}: by the time a
// reached version 3, b@2 already existed. InOrderFIFO pops three times and the store
// goes {a@1}, {a@1, b@2}, {a@3, b@2}: each one the server's state at a real
// resourceVersion.
//
// What DeltaFIFO gives a controller is one call per object with its whole history,
// which is all a level-driven controller needs: it reads the latest state and
// reconciles. What it cannot give is a cache that was ever consistent as a whole, so
// "my cache has seen resourceVersion N" means nothing, and a handler that looks at
// other objects in the store may see one object's future next to another's past.
// InOrderFIFO gives exactly the watch's order, so after each watch event the cache
// stands at a resourceVersion the server was at. A relist is the exception: Replace
// queues a Replaced for each listed object and the tombstones after them, and while
// those pop the cache is part old list, part new; it stands at the list's
// resourceVersion again when the Bookmark the informer queues after the Replace
// pops (which is what a reader waiting for a version waits for). It does not cost more memory, since
// DeltaFIFO keeps every delta too; it costs one process call per event instead of one
// per key.
//
// client-go added RealFIFO behind the InOrderInformers feature gate, on by default in
// 1.33 (kubernetes#129568). The same change removed
// ErrRequeue and Config.RetryOnError, which nothing used and which could put an old
// delta behind newer ones.
//
// # What kubewire took from client-go's FIFOs since 1.33, and what not
//
//   - InOrderInformers is GA in client-go 1.36 (kubernetes#136601): its informers
//     use RealFIFO; DeltaFIFO stays in the library, to be deprecated.
//     Adopted: kubewire's informers use InOrderFIFO unless told otherwise
//     (informer.Options.DeltaFIFO), and DeltaFIFO stays here to teach the
//     difference. The pipeline benchmark (BenchmarkInformer_10k_pods_then_10k_events,
//     median of 3, this machine) moved from 33,400 to 37,200 events/s and kept
//     3,160 heap bytes a pod: one Pop per event costs no more than one per key.
//   - UnlockWhileProcessingFIFO (handlers no longer run under the FIFO lock).
//     Nothing to adopt: here no handler ever ran under it. process applies a
//     delta to the store and appends one notification to each handler's
//     unbounded buffer (package informer's listener); the handlers run on their
//     own goroutines. What stays under the lock is the store write, and it must:
//     Replace reads the store (KnownObjects) to find deletions, so a write landing
//     between Pop and the store would make it invent or miss a deletion.
//   - AtomicFIFO (1.36): a relist or resync reaches the store as one event applied
//     under one lock, so a reader never sees a half-applied relist; and
//     InOrderInformersBatchProcess, which pops many events and applies them under
//     one lock (kubernetes#132240: up to 30× write throughput at batch 1000).
//     Declined for now. A half-applied relist is what this package's Replace
//     still shows a reader of the store between Pops: the deletions first, then
//     the listed objects. Making it atomic needs a store write of many objects
//     under one store lock and the handlers told after it, which package store
//     does not have yet; it is the next change here. The throughput half matters
//     less here: an Add and its Pop cost 0.72 µs a delta on InOrderFIFO
//     (BenchmarkAddPop, this machine), room for over a million events a second,
//     while the whole pipeline, decoding included, handles 37,000 a second: the
//     FIFO is not where a batch would save time.
//
// # Guarantees
//
//   - All methods of both FIFOs are safe for concurrent use; Pop may be called from
//     several goroutines, though an informer calls it from one.
//   - Pop calls process while holding the queue's lock, so no write lands between
//     popping a delta and applying it to the store; process must not call the queue.
//   - A failed process is not retried: Pop returns the error wrapped with the key and
//     the deltas are gone (see [DeltaFIFO.Pop] for why).
//   - HasSynced becomes true once the first Replace has happened and everything it left
//     queued has been popped, and stays true. The initial argument of process is
//     !HasSynced() as it was before that pop.
//   - Close wakes every blocked Pop; what was queued is still handed out, then Pop
//     returns [ErrClosed]. Writes after Close fail with ErrClosed. A cancelled ctx
//     makes Pop return ctx.Err() at once.
//   - Replace and Resync order what they queue deterministically (list order, queue
//     order, sorted keys), so tests and traces can be golden files.
//   - A key function error fails the write and queues nothing, including in Replace.
//
// # Compared with client-go
//
// DeltaFIFO is tools/cache/delta_fifo.go and InOrderFIFO is the_real_fifo.go. The
// delta types, the per-key accumulation, the Replace and Resync
// semantics (including deletions for keys only present in the queue,
// kubernetes#115658) and processing under the lock are the same. Different:
//
//   - Generic over T, and a Delta carries its Key and a typed Tombstone, so no handler
//     type-switches on interface{} (the DeleteFunc crash of many client-go users).
//   - Replace always emits Replaced (client-go's EmitDeltaTypeReplaced, which its
//     informers turn on anyway), and orders made-up deletions deterministically where
//     DeltaFIFO ranges over a map.
//   - Two Deleted in a row: both keep a watch delete over a tombstone, but of two
//     watch deletes client-go keeps the older (isDeletionDup) and DeltaFIFO keeps the
//     newer. The newer is the last word the server sent, with the higher
//     resourceVersion, and a delete handler should see that; the tests pin it
//     (two_deletes_in_a_row_collapse_into_one). Two watch deletes of one key with
//     nothing between them only come from a server that repeats itself, so the
//     difference is rarely seen.
//   - Replace keys the whole list before queuing anything, so it fails atomically.
//   - InOrderFIFO.Bookmark queues a Bookmark entry (client-go's RealFIFO queues
//     one too, where its informer asks for it): the informer calls it for watch
//     bookmarks and after each Replace, so that the store knows the version it
//     has caught up to. DeltaFIFO, which keeps no order across keys, has none.
//   - When the store cannot produce a key it just listed, no tombstone is queued;
//     client-go queues one with a nil Obj.
//   - HasSynced ignores writes before the first Replace; client-go counts any write.
//   - Both Pops take a context; writes to a closed queue fail.
//   - No ErrRequeue, AddIfNotPresent, transformer, or List/Get on the queue. The
//     informer transforms objects before they reach the FIFO, at the place
//     client-go's transformer runs (controller/informer/sink.go).
package fifo
