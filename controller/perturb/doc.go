// Package perturb tests a controller against what breaks controllers in
// production — a crash between two writes that belonged together, a view of
// the cluster that lags behind it, a state the controller never sees, an API
// server that says no — in-process, deterministically, in seconds, from an
// ordinary go test.
//
// # Where this sits
//
//	apiclient ─▶ listwatch ─▶ fifo ─▶ store ─▶ queue ─▶ controller
//	                                                    ^^^^^^^^^^ controller/perturb, in a controller's tests
//
// It imports package testing (testing/synctest needs a *testing.T), so only
// test files may import it; main_test.go checks that.
//
// # The whole move
//
// Give Explore what builds your controller on a Manager, what a user does,
// what must always hold, and what must hold once it is idle
// (example_test.go, idle_example_test.go):
//
//	func TestMyController(t *testing.T) {
//		r := perturb.Explore(t, perturb.Spec{
//			Setup:    func(m *controller.Manager) error { return mycontroller.Setup(m) },
//			Manager:  controller.ManagerOptions{Namespace: "demo"},
//			Workload: []perturb.Step{perturb.Create(Sites, `{…}`), perturb.Patch(Sites, "demo/home", `{…}`), perturb.Delete(Sites, "demo/home")},
//			Invariants: []perturb.Invariant{{Name: "…", Holds: func(s *perturb.State) error { … }}},
//			Eventually: []perturb.Invariant{{Name: "no copy without its original", Holds: …}},
//		})
//		if err := r.Err(); err != nil {
//			t.Fatal(err)
//		}
//	}
//
// Explore runs the workload once untouched — the reference — and then once
// for each perturbation at each point the reference offers:
//
//	crash/k        the process stops right after its k-th write is answered (it never
//	               reads the answer); caches, queues and memory are gone, and a fresh
//	               process starts from Setup
//	down/i         the process is stopped before step i and a fresh one starts after it
//	               (none across a Restart step, which is one already)
//	stale/k/C@v    crash/k, and the fresh process's view of collection C lags at
//	               version v, for Spec.Lag of fake time at most: what a lagging API
//	               server could serve stale is (a read at resourceVersion "0", one
//	               not older than a version the process has seen, a watch: lag.go),
//	               what it could not (a read with no resourceVersion) is not; then
//	               its watches catch up, change by change
//	stale/stepi/C@v the same across step i, as down/i: a controller that only reads
//	               before it deletes (a garbage collector) has no write to crash
//	               after before the view that misleads it (collector_test.go); a
//	               failure that down/i had already is not reported again
//	late/k         write k is answered, and its watch event held back: the process's
//	               watches of that collection hold for Spec.Lag (or until it is idle),
//	               past the next Reconcile — the staleness guard's case
//	coalesce/C/K@v the state of object K written at version v is never seen: C's watch
//	               holds from that event until K changes again, then ends with 410
//	               Expired, and the Reflector's relist shows the later state only
//	conflict/k     write k is answered 409 Conflict (where a real server could: an update,
//	               a patch that names a resourceVersion, an apply without force), and
//	               not made
//	throttle/k     429 with Retry-After: 1; unavailable/k: 503 with Retry-After: 1;
//	               internal/k: 500 without one — none of them made
//	timeout/k      write k is made, and answered 504: the controller cannot know it was
//	cut/i          a watch breaks right after the i-th watch event delivered
//	expire/i       the i-th watch event is replaced by 410 Expired
//
// Each execution is checked by the oracle (oracle.go): every invariant holds
// at every version; the controller becomes idle (Spec.Quiet with nothing
// written or delivered, and no turn the staleness guard sent back still to
// come) within Spec.Converge of each step; every Eventually property holds
// each time it is idle; the state it is idle in before each step equals the
// reference's there (a workload that ends by deleting an object leaves
// nothing of it in the end state: what the controller did to it is compared
// before the delete); and the end state equals the reference's. An idle
// state in which the perturbation still holds a watch back (a Coalesce's,
// until its object changes again) is neither checked nor compared. Objects are compared field by field, as the garbage
// collector would leave them (the test server has none), with what differs
// between any two runs taken out: uids, resourceVersions, timestamps and
// every string that reads as a time, generations and observedGenerations,
// managedFields, and the fields Spec.Ignore names. Objects named from one
// generateName are compared as a multiset, by content: which of two identical
// Pods a controller deleted is nobody's business.
//
// # Properties of the idle state, and of one process
//
// An Invariant holds at every version; most of what a controller promises
// holds only once it has acted: no leak ("no copy without its original"), no
// transition left unacted on ("a Pod that went Running had its Deployment
// restarted"), no object that never converges ("every Task whose Pod runs
// says Running"). Those are Spec.Eventually, checked each time the
// controller is idle — after the start, after each step, at the end — in
// the reference too, so a controller that always leaks fails by itself
// rather than serve as the oracle (Example_eventually). A Step that only
// reads and returns an error checks less well: the step is tried again once
// whatever the perturbation holds lets go, and it says nothing at the end.
//
// An Invariant can know which process runs: State.Process is the process
// (1, then one more for each crash, Down or Restart step), State.By the one
// whose write made the version (0: the workload), State.MadeBy the one whose
// write created an object. So "no process makes more Pods than the Pool
// asks for" can be stated, and holds across a restart whose fresh process,
// its first view lagging, makes them again — a window no staleness guard can
// close, since the fresh process has written nothing yet — while it fails
// when one process counts twice (pool_test.go). Restart() is the step that
// restarts the controller, as a rollout does.
//
// # How an execution runs
//
// Every execution runs in a testing/synctest bubble of its own, on a fresh
// apitest server reached through no network (apitest.NewHandler): a socket
// would keep the bubble's fake clock from moving. Between the processes'
// clients and the server stands a gate (network.go), an http.RoundTripper per
// process, and the execution's driver (execution.go) decides everything that
// could happen in more than one order:
//
//	repeat: synctest.Wait()               every goroutine of the bubble is blocked
//	        take in what happened         the story, the invariants, held watches
//	        let one thing through         a held request, or one watch event — the
//	                                      seed chooses — or, when there is neither,
//	                                      a worker that has finished a Reconcile
//	        or let the fake clock run     to the next backoff, requeue or timeout
//
// One thing at a time, and what runs in between is one causal chain: the
// same seed gives the same choices, the same executions and the same report,
// run after run. Two things the scheduler still decides are kept from
// mattering. A worker that has returned from Reconcile waits until every watch
// event already written is delivered (finish, in network.go): whether a
// handler's Request came before or after the worker took the last one, the
// next Reconcile reads the same caches and writes the same things. And
// reports count versions as changes to state (v7: the 7th write that changed
// an object that is not an Event or a Lease; a write that changes nothing
// moves no version, as on kube-apiserver), not as resourceVersions, which one
// more Event written moves.
//
// The server's history is recorded whole, by a watch per collection from
// resourceVersion 1 (history.go): it is where a lagging view is served from
// (lag.go), what invariants are checked on, and what the end state is read
// from. Perturbations act at the gate and nowhere else, so the package
// depends on no internals of apitest (it needs only apitest.NewHandlerWith,
// whose uids and generated names it draws from the seed), nor of the
// Manager: it sets ManagerOptions' Clock, Trace and Source, and the
// Reflectors it builds draw their jitter from the seed and list as the
// Manager's do on a 1.33+ server (apitest is v1.37, but serves no /version
// for ListCheapest to choose by): the first list is one LIST of the latest
// state, a consistent read that no server serves stale, unless
// Spec.FirstListAtZero asks for resourceVersion "0" as client-go's LIST does
// (foo_test.go shows what that costs).
//
// The Manager's staleness guard (controller.Options.DisableStaleGuard; on by
// default) is left as the controller has it, since it is part of what is
// tested: within one process it keeps a Reconcile from acting on a cache that
// has not yet shown the controller's own writes. A worker the guard sends
// back is not held (finish), and its skip is not told in the story; but the
// controller is not idle while that turn is still to come (before issue 38 it
// was, and a workload moved on before the turn: a false failure), and what
// the perturbation holds lets go while the driver waits for it — a
// Coalesce's watch relists, as a real one would long before the guard gives
// up (controller.StaleWaitLimit). Late explores its case (pool_test.go: a Pool that counts its Pods in its cache
// passes with the guard, and makes them twice without it).
//
// # Reading a report
//
// A report begins with what the reference did. A reference that fails by
// itself — an invariant broken, no quiescence, or a key whose last Reconcile
// returned an error (it has not converged; a Terminal error is an end state,
// not a failure) — is no oracle: the report says why, with its story, and
// nothing is explored. Otherwise its first line names the kinds that found
// something, and it gives, for each kind of perturbation that failed, its
// first failure whole — what it did, what went wrong, the command that
// replays it alone and the story around it — and the others of that kind in
// one line each. The kind whose first failure's story is shortest, from the
// perturbation to what went wrong, comes first: the clearest account of the
// bug, whichever kind found it. A story is what the gate saw, one line
// a hop, each prefixed with the process it is about:
//
//	step 3: delete buckets.example.com media/photos     the workload
//	[1] ← buckets.example.com MODIFIED media/photos v7  a watch event delivered
//	[1] → PATCH buckets.example.com media/photos 200 (write 8)
//	                                                    a request and its answer
//	[1]   reconcile media/photos: error: …              what a process made of it
//	[1] ✂ crashes before it reads the answer to write 8 the perturbation
//	✗ invariant "…" does not hold at v4 (…)             the failure
//
// The replay line (KUBEWIRE_PERTURB='seed=1 only=crash/8' go test -run …)
// runs the reference and that one perturbation, and logs the whole story:
// every hop of every stage (controller/trace), each under the gate's line
// that caused it.
//
// # A bug found, step by step
//
// finalizer_test.go's controller lists each Bucket in a registry ConfigMap
// while the Bucket exists, with a finalizer to take the key out when it goes.
// Deleting, it does what many operators do: it removes the finalizer first,
// "so that the deletion is not held up", then the key. Explore's report
// (testdata/registrar.golden) has a 500 on the key's removal find it first,
// then this crash:
//
//	FAIL crash/8: the process crashes right after write 8 (PATCH buckets.example.com media/photos) is answered; a fresh one starts
//	  the end state differs from the reference's:
//	    configmaps media/registry: .data.photos is "s3://photos", the reference's absent
//	  story:
//	    step 3: delete buckets.example.com media/photos
//	    [1] ← buckets.example.com MODIFIED media/photos v7
//	    [1] → PATCH buckets.example.com media/photos 200 (write 8)
//	    [1] ✂ crashes before it reads the answer to write 8
//	    [2] starts
//	    [2] → LIST buckets.example.com media 200
//	    [2]   buckets.example.com: listed 1
//
// Read it from the step: the user deletes photos; the finalizer holds it, so
// the server only marks it (v7, deletionTimestamp set). Process 1 reconciles
// and sends write 8, the finalizer's removal; the server answers 200 — and
// with no finalizer left, deletes the Bucket. Process 1 dies before the next
// line of its Reconcile, the one that would take the key out. Process 2 lists
// the Buckets: only videos. No event, no list, no resync will ever show it
// photos again, and nothing else knows the key is there: it stays forever,
// which is what the end state says. The order of two writes was the bug: a
// controller can be stopped between any two lines, and only what is written
// in the cluster survives. The fix is finalizer.Reconcile's order — clean
// up, then let the object go — which makes a crash between the two run the
// clean-up again (so it must be idempotent; setting a key to null is).
//
// The fixed twin, run through Explore, failed again, under stale/9, when a
// process's first list asked for resourceVersion "0" (before issue 38; with
// Spec.FirstListAtZero still): after the crash right after the finalizer
// went, a process whose cache of Buckets lags sees photos as it was before
// its deletion, and registers it anew; when its cache catches up, the
// Bucket's deletion finds nothing to clean up for. So the fix also registers
// only a Bucket that a GET — with no resourceVersion, a read the API server
// never serves stale — confirms is there and not being deleted. That is the second
// lesson, and the one Sieve's authors found in ten real controllers: what a
// controller reads from its cache may be older than what it wrote itself.
//
// The other examples, each a bug the way it appears in real operators and its
// fixed twin, each found by Explore and each passing it: sweeper_test.go
// (deleting what a stale cache does not show: data lost), collector_test.go
// (the same in a garbage collector, which writes nothing until it deletes),
// idle_example_test.go (a copy that leaks when its original goes while no
// process runs), backup_test.go (a
// Job with a generated name recorded in status afterwards: a crash between
// the two runs it twice; within one process, a watch of Backups cut before
// the status write came through did so too — the next Reconcile read a cache
// without it — until the staleness guard made that Reconcile wait for the
// cache to show the write; a crash loses the guard's memory with the rest,
// and the bug shows), task_test.go (a Task woken only on a Pending→Running
// update: a relist that coalesces the two never wakes it), greeting_test.go
// (a status write whose 409 is logged and forgotten), tenant_test.go (a create
// whose lost answer comes back as AlreadyExists, taken for someone else's
// object), catalog_test.go (a delete handler that skips the tombstones a
// relist makes). foo_test.go and podrestart_test.go explore the project's own
// controllers, and say what is found there and why.
//
// # What the test server does not do
//
// Explore runs on apitest, so a report is as true as apitest is to
// kube-apiserver (its doc.go lists the divergences; package difftest checks
// the rest against real servers). The one that can make a false report:
// there is no garbage collector (the end state is compared as if there were
// one, but an invariant sees the orphans a deleted owner leaves, and a
// controller that waits for the collector to delete a child waits forever).
// Those that can hide a bug: no admission, no defaulting, and no validation
// of what a controller writes beyond a few rules, so a controller whose
// writes a real server refuses, or whose logic depends on a defaulted field,
// can pass here. Before issue 30 apitest also moved the resourceVersion and
// sent a watch event for a write that changed nothing (a controller that
// applied unconditionally woke itself forever and was reported not idle), and
// took an apply that named no apiVersion and kind; it no longer does either.
//
// # Guarantees
//   - The same Spec and seed give the same report, run after run
//     (TestReports_are_the_same_run_after_run; 50 runs with
//     KUBEWIRE_PERTURB_RUNS=50). A different seed explores other orders;
//     every shipped bug is found at other seeds too, and no twin flagged
//     (TestExamples_are_found_at_every_seed, KUBEWIRE_PERTURB_SEEDS='2 3').
//   - A failure names one perturbation, and its replay line runs it again alone.
//   - Nothing touches the network or the wall clock: executions run on fake
//     time, so backoffs and requeues of minutes take none.
//   - An execution that cannot go on — a goroutine blocked where
//     synctest.Wait does not count it as blocked, such as a controller's
//     deadlock on a mutex — ends the test binary after a minute of real time
//     with a panic that names the execution and those goroutines (stall.go),
//     not at the test timeout.
//   - What is not explored: two faults in one execution, crashes at points
//     other than writes and steps, several replicas (leader election and
//     sharding are refused). A watch event late after a write is explored by
//     Late alone: elsewhere the worker waits for it (see How an execution
//     runs).
//
// # Compared with client-go, controller-runtime and Sieve
//
// client-go's fake clientset and controller-runtime's fake client have no
// watch semantics to perturb, and envtest runs a real kube-apiserver but
// injects nothing. Sieve (OSDI '22) perturbs a controller's view — stale
// reads, missed states, crashes — and Acto (SOSP '23) its inputs, both against
// a kind cluster with client-go instrumented, in hours. This package does
// Sieve's perturbations in-process, because kubewire owns every layer a view
// passes through, in seconds per controller, and deterministically.
package perturb
