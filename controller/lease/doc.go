// Package lease is the one place where kubewire reads and writes
// coordination.k8s.io/v1 Leases: the holder's side (write its record, renew it,
// stop acting at its renew deadline) and the observer's side (judge another
// holder's Lease on the observer's own clock). Leader election and sharding
// are two protocols built on it.
//
// # Where this sits
//
//	apiclient ─▶ listwatch ─▶ fifo ─▶ store ─▶ queue ─▶ controller
//	                                                    ^^^^^^^^^^
//	                                    lease ◀── leaderelection: one Lease, one holder at a time
//	                                          ◀── sharding: a Lease per member, claims of ranges
//
// It talks to the API server through apiclient alone, and imports nothing
// else of the module. It is a package of its own, rather than something
// leaderelection exports, because sharding is not an election: it has no
// leader, no candidates and no release, only members that each hold their own
// Lease and read the others'. With the Lease here, neither protocol imports the
// other, and each keeps only what is its own: leaderelection its candidate and
// leader loops, sharding its claims and hand-overs.
//
// # The whole move
//
//	h := lease.NewHolder(lease.HolderConfig{Client: c, Namespace: "ops", Name: "kubewire",
//		Identity: "web-1", LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, Clock: clock})
//	o := lease.NewObserver(15*time.Second, log)
//
//	obj, err := c.Resource(apiclient.Leases).Namespace("ops").Get(ctx, "kubewire")
//	seen := o.SeeObject(obj, clock.Now())      // a candidate reads (SeeList for a group)
//	if !seen.Held(clock.Now()) {
//		_, err = h.Take(ctx, seen.Lease)        // free or expired: take it (ErrRace: another was faster)
//	}
//	_, err = h.Renew(ctx)                       // every RetryPeriod (*HeldError: someone else has it)
//	if !h.Holds(clock.Now()) { stopWorking() }  // past the renew deadline
//	_, err = h.Release(ctx)                     // or h.Delete(ctx)
//
// example_test.go runs it against apiclient/apitest's API server in memory.
//
// # The record a holder writes
//
// holderIdentity (its identity), leaseDurationSeconds (its LeaseDuration in
// whole seconds, ROUNDED UP: 2.9 s is written as 3), renewTime (now),
// acquireTime (when it took the Lease), leaseTransitions (one more each time
// the Lease changes holder), and the annotation kubewire.io/holder-instance: a
// random value of the Holder's, new with every process. Everything else the
// Lease has is written back as it was read: labels and annotations others set,
// strategy and preferredHolder. A Holder takes a Lease only at the
// resourceVersion it read, and renews at the one it last wrote, so of two
// writers the server accepts one.
//
// A Lease is the Holder's own when it names both its identity and its
// instance. Two processes given one identity (a Deployment's manifest with a
// fixed --identity and three replicas) write the same holderIdentity; the
// instance tells them apart, so that the second finds the Lease held (a
// *HeldError) instead of renewing it as its own.
//
// # The observer's clock
//
// An Observer never compares a Lease's renewTime with its own clock: two
// machines may disagree by more than a lease. It notes when, on its clock, it
// first saw each Lease's record as it is now (holder, duration, times,
// transitions: a label or annotation added by hand is no sign of life), and
// counts the Lease held until it has stayed so for its duration.
//
// The duration honoured is the one the Lease states, CAPPED AT TWICE the
// observer's own LeaseDuration (30 s with the defaults). Both protocols cap:
// a Lease that says 3600 s, or 2147483647, and is never renewed (a crashed
// holder with a long duration, a Lease written by hand) would otherwise stop
// a controller, or a shard, for as long as it says; issue 29 saw that stall
// every replica of a sharded group. Leader election caps too, for the same
// reason and so that the rule is one: client-go has no cap, but a standby
// that waits an hour for a dead leader is as stuck as a shard. The cost:
// mutual exclusion holds while every holder's RenewDeadline is under every
// observer's honoured duration, so configurations mixed during a rollout must
// keep each RenewDeadline under twice each LeaseDuration (the defaults, 10 s
// against 30 s, leave room to double a LeaseDuration in one rollout).
//
// A Lease that states no duration is honoured for the observer's own. A Lease
// that cannot be decoded (a renewTime of "yesterday") is not an error: it is
// logged once per resourceVersion, its resourceVersion stands in for its
// record, and it is honoured for the observer's own LeaseDuration. Leader
// election treats it as held by someone it cannot name, and takes it over
// once it has stayed unchanged that long; sharding skips it (issue 29: one
// unreadable Lease made the whole member list unreadable).
//
// # Guarantees
//
//   - Durations are never shortened on the wire: leaseDurationSeconds is the
//     holder's LeaseDuration rounded up, so no observer counts a Lease
//     expired sooner than its holder was configured for.
//   - A holder stops acting (Holds turns false) RenewDeadline after its last
//     successful write was sent; an observer counts the Lease expired no
//     sooner than the honoured duration after it saw that write, which is
//     after the write was sent. With LeaseDuration > RenewDeadline and clocks
//     running at the same rate (their readings may differ), the holder stops
//     first, by LeaseDuration − RenewDeadline at least.
//   - A Holder never writes over a Lease that another holder or process has
//     written since its own last write: it reads, and returns *HeldError.
//   - One undecodable Lease is never an error of the read that found it.
//   - One renew policy for leader election and sharding (deadline.go): a
//     renewal may take what is left until the renew deadline, a RetryPeriod
//     once none is left (RenewTimeout), and the next one comes a RetryPeriod
//     later, or at the deadline when that is sooner (RetryWait).
//
// Leases are not fencing: a holder whose process stalls (a long GC pause, a
// frozen VM) for longer than the lease may resume and act before it notices.
// Keep reconciles idempotent and writes conditional.
//
// # Compared with client-go
//
// client-go splits this between tools/leaderelection (leaderelection.go: the
// LeaderElector keeps observedRecord and observedTime, tryAcquireOrRenew
// writes the record) and tools/leaderelection/resourcelock (interface.go: the
// Interface with Get, Create and Update, and LeaderElectionRecord, the record
// apart from the object that stores it; leaselock.go: LeaseLock, which turns
// a LeaderElectionRecord into a LeaseSpec and back). The record is the same
// (HolderIdentity, LeaseDurationSeconds, AcquireTime, RenewTime,
// LeaderTransitions, Strategy, PreferredHolder), and so is the observer's
// rule: expiry from when the record was last seen to change, on the reader's
// clock (client-go compares the record's encoded bytes; here its fields).
//
// What differs, and why:
//   - The Lease itself is the record: with ConfigMap and Endpoints locks gone
//     (removed from client-go too) there is nothing to abstract over, and
//     keeping the Lease whole is what carries others' labels and annotations
//     back on each Update.
//   - leaseDurationSeconds is rounded up; client-go writes
//     int(LeaseDuration / time.Second), which truncates a fractional duration.
//   - The honoured duration is capped, and a Lease that states none gets the
//     reader's own; client-go honours whatever is written, 0 included (a
//     Lease without a duration is expired at once).
//   - The instance annotation: client-go knows a holder by its identity
//     alone, so two processes given one identity both renew one Lease and
//     both lead.
//   - The renew deadline is measured from when the last successful renewal
//     was sent, not from the start of the current round of retries.
//   - An undecodable Lease is logged once and handled by the protocol;
//     client-go logs an error at each retry and never takes it.
package lease
