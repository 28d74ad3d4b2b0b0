// Package queue is the workqueue: it decouples "something changed" from "reconcile
// it". Event handlers Add a Key; workers Get it, reconcile, and call Done.
//
// # Where this sits
//
//	apiclient ─▶ listwatch ─▶ fifo ─▶ store ─▶ queue ─▶ controller
//	                                           ^^^^^
//
// The queue is generic over the key type: the controller's is a Request
// {Namespace, Name}; tests use strings. Keys must be comparable and small; the object
// itself stays in the store, and the worker looks it up by key, so it always sees the
// latest version rather than the one that was current when the event fired.
//
// See example_test.go for the whole cycle: a burst of Adds absorbed into one key, a
// key added again while it is processed, and a failing key backing off.
//
// # The worker loop
//
//	for {
//		key, quit := q.Get() // blocks; quit once shut down and empty
//		if quit {
//			return
//		}
//		if err := reconcile(key); err != nil {
//			q.AddRateLimited(key) // retry later, later each time
//		} else {
//			q.Forget(key) // success: the next failure backs off from the start
//		}
//		q.Done(key) // always: until Done, nobody else may take this key
//	}
//
// # Guarantees
//
//   - A key is never handed to two workers at once.
//   - Adding a key that is already waiting does nothing: n events between two Gets
//     cost one reconcile.
//   - A key added while it is being processed is handed out again after Done: no
//     change is lost, and no change is processed by two workers at once.
//   - Within a priority, keys come out in the order they became queued: the first
//     Add of an idle key puts it at the back, and later Adds while it waits keep its
//     place. A key added again while it is being processed goes to the back at
//     Done, behind keys added after it. Keys added with AddLowPriority come out
//     only when no normal key waits, and a plain Add of a key waiting at low
//     priority moves it to the back of the normal ones (priority.go).
//   - AddAfter(key, d) adds key once d has passed; if key is already waiting there,
//     the earlier time wins. However many keys wait, the queue keeps one timer and
//     starts no goroutine.
//   - After ShutDown, Add does nothing, Get hands out what is queued and then reports
//     quit. ShutDownWithDrain also waits until the queue is empty and every key
//     handed out is Done.
//   - Every time the queue reads comes from its Clock: tests step a fake one and
//     never sleep (see Testing).
//   - With the default limiter no retry is scheduled more than 1000 s out.
//   - Metrics returns plain values. The queue writes no exposition format: the one
//     writer of the workqueue_* text is controller/metrics.Workqueue.
//
// # Testing
//
// The fake Clock is apiclient/clock's Fake: the same one that times the client's
// and the Reflector's waits, so a controller test sets one clock and steps it.
// apiclient/clock is the module's floor, standard library only, and the one
// package of the module queue imports (main_test.go allows exactly that): the
// Clock interface, the Backoff behind Exponential and the token bucket behind
// TokenBucket are defined there once. When Step returns, every AfterFunc that
// fell due has run, so the delayed keys are already queued: no waiting, no
// polling.
//
// testing/synctest was the other way: run each test in a bubble on RealClock,
// sleep, then synctest.Wait. It would keep the tests free of the fake, but it
// tests RealClock rather than the Clock a user's fake plugs into, it needs every
// test wrapped in a bubble and a Wait after each step, and a controller test would
// still need the fake for the client. One fake everywhere reads more simply.
//
// # Compared with client-go
//
// The counterpart is k8s.io/client-go/util/workqueue: queue.go, delaying_queue.go,
// rate_limiting_queue.go, default_rate_limiters.go, metrics.go. The semantics of Add,
// Get, Done and the shutdowns are the same, and so are the limiters' defaults and the
// metric names. What differs, and why:
//
//   - One type, not three. client-go wraps the queue in a delaying queue and that in a
//     rate-limiting queue; here one struct under one mutex does all three, and a
//     reader follows a key through one file per concern.
//   - No goroutines. client-go's delaying queue runs a loop fed by a channel, plus a
//     10-second heartbeat, and its metrics run a ticker goroutine; here AddAfter arms
//     one AfterFunc timer and the metrics are computed when read.
//   - One map entry per key, holding the dirty and processing flags and the metric
//     timestamps, where client-go keeps two sets and two timestamp maps; the FIFO
//     holds entries, so Get hashes nothing; Done leaves the entry in place while the
//     key is idle, so a key that changes again is hashed twice per round trip, not
//     seven times; and the FIFO is a ring buffer rather than a slice resliced from
//     the front, so that round trip allocates nothing. That is where the speed comes
//     from: bench/README.md has the figures against client-go.
//   - Get returns (key, quit) as client-go does, but Done on a key that was not handed
//     out does nothing, where client-go would queue a second copy of a dirty key.
//   - ShutDownWithDrain waits for the queue to be empty too, not only for the keys
//     already handed out, so that returning means "everything was processed".
//   - The token bucket caps its delay (see TokenBucket); client-go's grows without bound.
//   - Metrics are plain values, kept by default, rather than a pluggable provider
//     that is off unless the queue is named. The counters cost nothing; the
//     durations cost three clock reads per key, and Config.NoTiming turns them off.
//   - Two priorities (AddLowPriority, priority.go), which client-go's workqueue does
//     not have; controller-runtime v0.23's priority queue has many, in a B-tree.
package queue
