// Package sharding spreads one controller over many replicas: each replica
// holds a Lease of its own, every replica reads the same member list and
// computes the same split of a 64-bit hash space, and each caches and
// reconciles only the objects whose hash falls in its ranges. The API server
// does the filtering where it can (shardSelector, KEP-5866); the replica does
// it otherwise. Ranges change hands without two replicas ever reconciling one
// object at once.
//
// # Where this sits
//
//	apiclient ─▶ listwatch ─▶ fifo ─▶ store ─▶ queue ─▶ controller
//	     ▲           ▲                                  ^^^^^^^^^^
//	     │           └─ Source: a Reflector per set of ranges, with the shardSelector
//	     └──────────── Sharder: member Leases, the split, hand-overs; the gate before each reconcile
//	                     └─ lease: each member's record, its expiry, the renew deadline
//
// Its one caller is the Manager (ManagerOptions.Sharding), which needs of a
// Sharder what controller/manager_sharding.go's shardRing names: which objects
// are this replica's now (Admit, Owns), word when that changes (Served), what
// fills a sharded informer (Source), Run, and a Status for /metrics and
// /readyz. The Manager settles once, when a controller is completed, which
// of its Requests the gate asks about; nothing of that is looked up again per
// Request.
//
// Leader election (package leaderelection) makes one replica work and the
// others wait; sharding makes all of them work. A Manager does one or the
// other (ManagerOptions.LeaderElection or .Sharding), never both. Both hold
// and read Leases through package lease, by the same rules; the claims of
// ranges and the hand-overs are this package's.
//
// # The whole move
//
//	m, _ := controller.NewManager(client, controller.ManagerOptions{
//		Sharding: &sharding.Config{Name: "kubewire-foo", Member: lease.Member{Namespace: "ops"}},
//	})
//	_, err := controller.New(m, "foo", controller.Options{}).
//		For(foo.Foos).               // this replica's share, reconciles gated
//		Owns(apiclient.Deployments). // all of them
//		Complete(reconciler)
//
// `kubewire run foo --shards` is that, with the Foo controller of package foo.
//
// # Membership
//
// Each replica holds a Lease "<Name>-shard-<identity>" (a lease.Holder),
// labelled kubewire.io/shard-group=<Name>, renewed every RetryPeriod as leader
// election renews its one Lease, and annotated kubewire.io/shard-ranges with
// the ranges it claims ("0000000000000000-7fffffffffffffff"); package lease
// writes the record and the instance of its process. A member is live while
// its Lease has a holder and this replica has seen its record change within
// its leaseDurationSeconds — capped at twice this group's own LeaseDuration —
// measured on this replica's clock from when it first saw that record (a
// lease.Observer: never from the times written in it, clocks disagree). A
// clean stop deletes the Lease; a Lease unchanged for twice its (capped)
// duration is deleted by whoever sees it so (with the resourceVersion read as
// a precondition, so a renewal in between keeps it). A Lease of the group that
// cannot be decoded is logged once per version and skipped: its holder and its
// claim cannot be read.
//
// # The split
//
// Assign sorts the live members and gives the i-th of n the i-th of n equal
// contiguous ranges of [0, 2^64). Objects hash with 64-bit FNV-1a of their UID
// (ByUID) or namespace (ByNamespace), the hash KEP-5866 has the API server
// compute, so a range means the same objects on both sides (set_test.go holds
// UIDs a real server put in each half). Equal ranges keep the replicas' loads
// within a percent or two of each other at 10,000 objects and give each
// replica one shardRange term; the cost is that a join or leave shifts every
// boundary, moving up to half the space (see "At 100 replicas").
//
// # Hand-over
//
// Every RetryPeriod, or at once when a member's Lease changes (a watch on the
// group's Leases wakes it; every decision still reads them afresh), a replica
// runs one round (sharder.go):
//
//	renew   write its Lease: renewTime and its claim
//	read    LIST the group's Leases, a consistent read from etcd (no cache)
//	target  its part of Assign(live members)
//	release ranges served or claimed outside target: stop admitting their
//	        reconciles, wait for those running (a RetryPeriod at most; the
//	        next round waits again), then write the smaller claim
//	take    ranges of target not yet claimed, once no live member claims any
//	        of them: write the claim, LIST again, withdraw if another live
//	        member claims any of them now; else let the caches list target,
//	        wait until the stores hold that list, and only then serve it,
//	        queueing every cached object newly served
//
// The gate (gate.go) is what a reconcile passes first: a sharded controller
// reconciles a Request only when its object is in the cache and its hash in a
// served range, and it holds the gate until the reconcile returns. Narrowing
// the served set waits for the reconciles admitted before it.
//
// # Guarantees
//   - No object is reconciled by two replicas at once. A replica reconciles a
//     range only while its Lease claims it, claims are written before
//     serving and withdrawn only after the last reconcile of the range has
//     returned, and a claim is kept only if the LIST after it showed no other
//     live claim on the range. Of two replicas claiming at once, each LIST
//     follows its own write, so the later of the two LISTs sees both claims:
//     at least one withdraws. This rests on the API server's reads being
//     consistent (a LIST without resourceVersion is), on clocks running at
//     the same rate, and on no replica stalling (a GC pause, a frozen VM) for
//     longer than LeaseDuration − RenewDeadline, the same assumptions as
//     leader election, which is not fencing either: keep reconciles
//     idempotent and writes conditional. The one case the gate cannot hold
//     is a reconcile that ignores its context: when the renew deadline
//     passes, the contexts of the reconciles still running are cancelled,
//     and one that runs on for LeaseDuration − RenewDeadline more (5 s with
//     the defaults) may meet the range's next owner.
//   - A replica whose last successful renewal was sent RenewDeadline ago
//     admits no reconcile and cancels the contexts of those running: the
//     gate reads the clock itself, and a goroutine of the Sharder's watches
//     the deadline, so a round stuck in a slow request cannot put it off.
//     Its next round forgets its claim, unless that round renews after all
//     (late, not failed): then what the gate refused meanwhile in the ranges
//     it still serves is queued again (OnServe), so a late renewal loses no
//     object.
//     The others count it gone only after its Lease has not changed for
//     LeaseDuration (written rounded up to whole seconds). With the defaults
//     that leaves 5 s.
//   - After a crash the dead member's ranges are served again within
//     LeaseDuration, plus one RetryPeriod, plus the time to list them (kill -9
//     of one of three replicas, 300 Foos: 15.2 s from the kill to the last of
//     30 new Foos' Deployments). After a clean stop, at the others' next
//     round, which the Lease's deletion wakes (0.2 s).
//   - Each sharded informer caches the served ranges alone, once settled: a
//     replica that gives ranges up lists its smaller set again.
//   - A member cannot be impersonated (self.go). Two processes given one
//     identity, or two identities whose Lease names meet, are told apart by
//     the instance each writes: the one that finds its Lease written by
//     another instance serves nothing, cancels its running reconciles, says
//     so at ERROR and on /readyz, and takes the Lease over only once it has
//     been left unrenewed for its duration. Of twins, one serves.
//   - A member cannot outlive its word: a Lease's leaseDurationSeconds is
//     honoured up to twice this group's LeaseDuration (30 s with the
//     defaults), so a Lease that says 3600 s and never renews holds the
//     ranges it claims for 30 s after its last change, not an hour.
//   - A replica that waits says for what and on whom, at INFO once per change
//     and on /readyz (Status.Waiting): "waiting for member "r2" (Lease
//     kubewire-foo-shard-r2) to release 8000000000000000-ffffffffffffffff; its
//     claim holds until its Lease is left unrenewed for 15s". The identity is
//     another Lease's word, quoted Go style (strconv.Quote), as the log
//     quotes it: escape sequences and newlines in it reach no terminal.
//
// A network partition: a replica cut off from the API server can neither
// renew nor be seen renewing. It admits no reconcile from RenewDeadline on; the
// others drop it from the members LeaseDuration after they last saw its Lease
// change and split the space without it. When it is back it writes an empty
// claim and takes its new share through the same protocol. Replicas that
// cannot reach each other but can reach the API server notice nothing: they
// coordinate only through it.
//
// # What is sharded, and what is not
//
// Only the informer of a controller's For resource, the resource it
// reconciles. Objects it owns or looks up (a Foo's Deployment) hash
// apart from their owner, so they stay unsharded: every replica caches them
// all. A controller watching only unsharded informers is not gated: it runs
// on every replica. A Request whose object is not in the cache is skipped, so
// a sharded controller is never asked to reconcile a deleted object by name:
// clean up with a finalizer (package finalizer), as a controller should
// anyway, since a NotFound reconcile is lost when the process is down.
//
// Whether the server filters is found out, not configured: before each
// Reflector starts, a LIST of one object with the shardSelector tells (a
// server that applies it echoes it in the list's metadata.shardInfo). On
// kube-apiserver 1.37.2 with ShardedListAndWatch on, built-in resources are
// filtered by the server and custom resources are not (a Foo list came back
// whole, with no shardInfo): the Foo controller filters on its own side, and
// its cache still holds its share alone, but every replica receives and
// decodes every Foo event.
//
// # Compared with client-go and others
//
// client-go and controller-runtime have no sharding (controller-runtime
// #1456); users shard by hand with label selectors, one Deployment per shard.
// client-go's informers can pass a shardSelector through
// WithTweakListOptions (the KEP's own example) but nothing computes the
// ranges, moves them or guards reconciles. kube-state-metrics shards on the
// client by a fixed --shard/--total-shards pair. timebertt's
// kubernetes-controller-sharding assigns objects with a sharder process and a
// webhook that labels every object; here there is neither: Leases and the
// hash are all the replicas share, and the hash is the one the server
// filters by.
//
// # At 100 replicas and a million objects
//
// Not measured here (2 cores); what would change:
//
//   - Lease traffic. Each replica writes its Lease every 2 s (50 writes/s for
//     100) and LISTs the group's 100 Leases each round (50 LISTs/s of ~40 KB).
//     The writes are cheap; the LISTs should become a Lease informer read
//     every round, with a consistent LIST only after writing a claim, where
//     the protocol needs one (a few per membership change).
//   - Rebalancing. Equal contiguous ranges move up to half the space per
//     join: ~500,000 objects relisted across the group, each replica listing
//     a new range of ~10,000 while the rest of its work waits. Past a few
//     dozen replicas, split the space into fixed buckets (say 4,096) assigned
//     by rendezvous hashing: a join moves 1/n of them, and a replica's
//     selector becomes ~41 shardRange terms joined by ||, which the server
//     accepts.
//   - The API server. 100 sharded watches per resource instead of one
//     unsharded watch per replica; with the server filtering, each event is
//     hashed once and sent to one watcher, where client-side filtering sends
//     every event to all 100 and each decodes and drops 99% of them: without
//     the server's shardSelector sharding divides memory and reconciles, not
//     network or decoding.
//   - Hand-over time is dominated by LeaseDuration after a crash; after a
//     clean stop by listing the range (10,000 objects: a fraction of a
//     second).
package sharding
