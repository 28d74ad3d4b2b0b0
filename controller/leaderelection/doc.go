// Package leaderelection makes sure that of several replicas of a controller, one
// reconciles at a time: they compete for a coordination.k8s.io/v1 Lease, the
// holder does the work and renews the Lease every few seconds, and the others wait
// until it stops renewing.
//
// # Where this sits
//
//	apiclient ─▶ listwatch ─▶ fifo ─▶ store ─▶ queue ─▶ controller
//	                                                    ^^^^^^^^^^
//	                                                    leaderelection: who may reconcile
//	                                                      └─ lease: the record, its expiry, the renew deadline
//
// The controller's manager starts informers on every replica (so a standby is warm
// and takes over with a full cache), and runs the reconcile workers inside
// onStartedLeading, which only the holder of the Lease calls. It talks to the API
// server through apiclient alone: a Get and an Update (or Create) of one Lease.
// What it writes and how it judges another holder's Lease is package lease's,
// which sharding shares; the election (candidate, leader, release) is this
// package's.
//
// # The whole move
//
//	e, err := leaderelection.New(leaderelection.Config{
//		Member: lease.Member{Client: client, Namespace: "default"}, // and Identity, timings, Clock, Logger
//		Name: "kubewire",
//		ReleaseOnCancel: true, // hand over at the standby's next try on a clean shutdown
//	})
//	err = e.Run(ctx,
//		func(ctx context.Context) { runWorkers(ctx) }, // only while we hold the Lease
//		func() { log.Print("stopped leading") })
//
// example_test.go runs it against apiclient/apitest's API server in memory. A
// controller.Manager takes a Config in ManagerOptions.LeaderElection and runs
// the elector itself; ForLease(namespace, name, identity) is the usual one in a
// single call, with the Manager's client, clock and logger.
//
// # States
//
//	Run
//	 │
//	 ▼
//	CANDIDATE ◀──┐  held by another and not expired, or another candidate wrote
//	 │  ├────────┘  first (Conflict, AlreadyExists): wait RetryPeriod × 1 to 2.2,
//	 │  │           or until the lease expires if that is sooner; read it again
//	 │  └── ctx done ──────────────────────────▶ return nil
//	 │
//	 │  the Lease is missing, free, expired or ours: write ourselves in
//	 │  (create, or update at the resourceVersion just read)
//	 ▼
//	LEADER ◀─────┐  renewed: wait RetryPeriod, renew again
//	    ├────────┘
//	    ├── ctx done, or the work returned ────▶ STOPPING: cancel the work and wait for it;
//	    │                                        release if ReleaseOnCancel;
//	    │                                        onStoppedLeading; return nil
//	    └── not renewed for RenewDeadline, ────▶ LOST: cancel the work and wait for it;
//	        or another holder in the Lease       onStoppedLeading; return ErrLeadershipLost
//
// A CANDIDATE reads the Lease each time it wakes. It may write itself in as holder
// when the Lease has no holder, names this very process already (its identity and
// the instance package lease writes), or has not changed for the holder's
// leaseDurationSeconds — capped at twice the candidate's own LeaseDuration — as
// measured on the candidate's own clock from the moment it first saw the current
// record. It never compares the Lease's renewTime with its own time: two machines'
// clocks may disagree by more than a lease. A Lease that cannot be decoded is held
// by someone it cannot name, until its resourceVersion has stayed unchanged for
// the candidate's own LeaseDuration; then it is written over.
//
// A LEADER updates the Lease it last wrote with a fresh renewTime. That write
// carries the resourceVersion it got back last time, so if anyone else has written
// since, the server refuses it (409 Conflict) and the leader reads the Lease to see
// whether it still holds it: its identity and its instance.
//
// # Guarantees
//
//   - Optimistic concurrency decides every contest: of two candidates that try at
//     once, the server accepts one write and refuses the other (Conflict on
//     update, AlreadyExists on create). The loser stays a candidate.
//   - The leader stops leading when RenewDeadline has passed since its last
//     successful renewal (measured from before that write was sent), and a
//     candidate takes over no sooner than LeaseDuration after it saw that renewal.
//     With the defaults the work has 5 s to stop between the two, provided clocks
//     run at the same rate (their readings may differ; that does not matter).
//   - onStartedLeading's ctx is cancelled when leading stops, and Run does not
//     release the Lease, call onStoppedLeading or return until onStartedLeading has
//     returned. So a released Lease never lets a successor start while this
//     replica's work still runs.
//   - After a crash (no release), a standby takes over at most LeaseDuration plus
//     one jittered RetryPeriod (19.4 s with the defaults) after the leader's last
//     renewal; after a release, at its next try (at most 4.4 s). Measured with the
//     defaults on kube-apiserver v1.37.2 and v1.32.4 (2026-11-25,
//     TestIntegration_leader_election_hand_over in package controller, 3 runs
//     each): after a crash 15.0 s every time (the standby wakes when the Lease it
//     watches expires); after a clean stop 2.0 to 4.2 s (one jittered
//     RetryPeriod). README gives the command's own (two `kubewire run
//     --leader-elect` replicas, measured for issue 36: 15.3–16.7 s after a
//     kill -9, 0.56–3.60 s after SIGTERM), with these as its earlier series.
//   - Two processes given one identity lead one at a time: the second finds the
//     Lease written by another instance and waits as for any other holder.
//   - A Lease that is never renewed holds a standby off for at most twice its own
//     LeaseDuration after its last change (30 s with the defaults), whatever
//     duration it states; one that cannot be decoded, for LeaseDuration.
//   - Status, IsLeader and Leader are safe to call from any goroutine (a /readyz
//     handler, a metrics func) at any time.
//   - Requests: a standby reads once per wait; a leader writes once per renewal
//     and reads only after a Conflict.
//
// Leader election by lease is not fencing: a leader whose process stalls (a long
// GC pause, a frozen VM) for longer than the lease may resume and act before it
// notices it lost. Keep reconciles idempotent and let the API server's
// resourceVersions catch stale writes, as every controller should anyway.
//
// # Compared with client-go
//
// The counterparts are k8s.io/client-go/tools/leaderelection (leaderelection.go:
// LeaderElector, Run, acquire, renew, tryAcquireOrRenew, release) and
// resourcelock/leaselock.go (the Lease as a lock). The rules and the defaults are
// the same: expiry judged on the observer's clock from when the record last
// changed; transitions counted when the holder changes; a release that clears
// the holder and sets the duration to 1 s; jitter factor 1.2; the leader's
// optimistic renewal without a read first. Where the record differs
// (leaseDurationSeconds rounded up, the honoured duration capped, the instance
// annotation, an undecodable Lease), package lease says so and why.
//
// What differs in the election, and why:
//   - Run waits for onStartedLeading to return before it releases, calls
//     onStoppedLeading, or returns. client-go starts OnStartedLeading on a goroutine
//     and never waits for it, so with ReleaseOnCancel its docs ask the caller to make
//     sure the work has stopped before cancelling; here that is done for you.
//   - onStoppedLeading is called only if this replica led. client-go defers
//     OnStoppedLeading at the top of Run, so a standby that is shut down is told it
//     "stopped leading" too, a well-known surprise.
//   - Work that returns on its own ends the leadership (and releases, if asked);
//     in client-go the Lease keeps being renewed with nobody working behind it.
//   - The renew deadline is measured from the last successful renewal, not from the
//     start of the current round of retries (which in client-go lets a leader that
//     cannot reach the server hold on for RetryPeriod + RenewDeadline), and each
//     request is bounded by the time left before it.
//   - A leader that reads another holder in the Lease stops at once, where client-go
//     keeps retrying until its deadline.
//   - A candidate wakes when the lease it watches expires, if that comes before its
//     next jittered try, instead of noticing up to 4.4 s late.
//   - OnNewLeader is called synchronously on Run's goroutine, in order; client-go
//     starts a goroutine per call, so two changes in quick succession may be
//     reported in the wrong order.
//   - Run returns an error saying why leadership was lost; client-go's Run returns
//     nothing.
//   - Only Leases: no ConfigMap or Endpoints locks (removed from client-go too),
//     no MultiLock, no coordinated leader election (LeaseCandidate, alpha).
package leaderelection
