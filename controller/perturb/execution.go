package perturb

import (
	"context"
	"encoding/binary"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
)

// execution is one run of the workload against the controller, with at most
// one perturbation: the reference has none. It runs inside a synctest
// bubble, and its driver — run, in the bubble's first goroutine — decides
// everything that can happen in more than one order:
//
//	start process 1
//	for each step:  settle, then do the step
//	settle
//
//	settle: repeat until idle for Quiet (or the Converge bound, or MaxMessages):
//	        synctest.Wait()            every other goroutine is blocked
//	        absorb                     what happened: the story, invariants, held watches
//	        crash and restart          if the perturbation said so at the last write
//	        let one thing through      a held request, or one watch event (seeded choice)
//	        or wait for the fake clock to bring something (a backoff, a requeue)
type execution struct {
	spec    Spec
	plan    Perturbation
	seed    uint64
	verbose bool
	rng     *rand.Rand
	moves   *atomic.Int64 // a turn of the driver's, for the watchdog outside the bubble

	ctx        context.Context
	hist       *history
	net        *network
	stopServer func()
	client     *apiclient.Client // the workload's
	procs      []*process
	cur        *process

	let        *call     // let through since the last absorb
	crashDue   bool      // the perturbation's write was answered: crash now
	fired      bool      // the perturbation happened
	lateUntil  time.Time // when the watches a Late perturbation holds go; zero: none held
	lastActive time.Time // the last write or watch event
	checkedAt  int64     // the version invariants were last checked at
	state      objects   // the server's objects at checkedAt
	steps      int       // the steps of the workload begun

	mu   sync.Mutex // guards the story and guarded: hops come from every goroutine
	over bool       // the execution is shutting down: hops are no longer told
	// guarded are the Requests of the current process the staleness guard
	// has sent back and no Reconcile has ended for since: while there is
	// one, the controller is not idle (its turn is still to come).
	guarded map[string]bool
	story   []string
	at      int // where in the story the perturbation happened, -1 before

	out outcome
}

// outcome is what an execution leaves behind: plain values, read after the
// bubble is gone.
type outcome struct {
	writes  []point         // every write of a process, in order
	events  []point         // every watch event a process was delivered, in order
	watched []string        // the collections processes listed or watched
	atZero  map[string]bool // the collections processes read at resourceVersion "0"
	history []change
	// idle is where the server's state stood each time the controller was
	// idle, after the start and after each step: a resourceVersion, or -1
	// where the perturbation held something back (checkIdle).
	idle []int64
	// steps is the version (ordinal) after each step of the workload.
	steps   []int
	problem string            // empty when every check passed
	failing map[string]string // key → how its last Reconcile failed, for keys whose last one did
	fired   bool
	story   []string
	at      int
}

// point is a write or a watch event, for naming perturbations after it.
type point struct {
	what    string // as the story tells it
	method  string // writes
	coll    string
	key     string
	typ     string // events
	version int    // the state's version (ordinal) after the write; the event's
	// conditional: a write that can be answered 409 (perturbation.go)
	conditional bool
}

// execute runs one execution in a bubble of its own.
// verbose: the story keeps every hop of every stage, for a replay.
func execute(t *testing.T, spec Spec, plan Perturbation, verbose bool) outcome {
	var out outcome
	var moves atomic.Int64
	defer watchdog(plan.ID(), &moves)() // stall.go
	synctest.Test(t, func(*testing.T) {
		x := &execution{spec: spec, plan: plan, seed: spec.Seed, rng: rand.New(rand.NewPCG(spec.Seed, 0x9e3779b9)), at: -1, verbose: verbose, moves: &moves}
		x.run()
		out = x.out
	})
	return out
}

func (x *execution) run() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	x.ctx = ctx
	// The server draws uids and generated names from the seed: the same seed,
	// the same names, and a controller that sorts by name does the same.
	var key [32]byte
	binary.LittleEndian.PutUint64(key[:], x.seed)
	h, stop := apitest.NewHandlerWith(apitest.HandlerOptions{Rand: rand.NewChaCha8(key), AnyCustomResource: true, AnyNamespace: true})
	x.stopServer = stop
	x.hist = newHistory(ctx, h)
	x.net = newNetwork(h, x.hist)
	x.net.told = x.told
	x.client, _ = apiclient.New(config, apiclient.Options{Transport: transport{x.net, nil}})
	x.lastActive = time.Now()
	defer x.shutdown()
	if err := x.start(nil); err != nil {
		x.fail("%v", err)
		return
	}
	for i, st := range x.spec.Workload {
		if !x.settle(false) || !x.checkIdle() {
			return
		}
		// Down, and Stale at a step, stop the process before the step and
		// start a fresh one after it; so does a Restart step.
		down := (x.plan.Kind == Down || x.plan.Kind == Stale) && x.plan.Step == i+1
		if down {
			x.fire()
			x.say(x.cur, "✂ stops before step %d", i+1)
		}
		if down || st.restart {
			x.net.kill(x.cur)
			if err := x.stop(x.cur); err != nil {
				x.fail("%v", err)
				return
			}
		}
		x.steps = i + 1
		x.say(nil, "step %d: %s", i+1, st.Name)
		x.lastActive = time.Now()
		var err error
		if st.Do != nil {
			err = st.Do(ctx, x.client)
		}
		synctest.Wait() // the step's changes reach the history
		x.out.steps = append(x.out.steps, x.hist.ordinal(x.hist.last()))
		if down || st.restart {
			var l *lag
			if down && x.plan.Kind == Stale {
				l = x.lagAt(x.plan.Coll, x.plan.Version)
			}
			if err := x.start(l); err != nil {
				x.fail("%v", err)
				return
			}
		}
		if err != nil && x.letGo() {
			// A step that needs what the controller has not done yet (a
			// Deployment to write the status of) waits for it, as a user
			// would: whatever the perturbation holds lets go first.
			x.say(nil, "step %d fails (%v): what is held back lets go, and the step is tried again", i+1, err)
			if !x.settle(false) {
				return
			}
			err = st.Do(ctx, x.client)
		}
		if err != nil {
			x.fail("step %d (%s): %v", i+1, st.Name, err)
			return
		}
	}
	if x.settle(true) {
		x.checkIdle()
	}
}

// settle lets things through until the controller is idle: Quiet of fake time
// with nothing written and no watch event delivered. last: the workload is
// done, and held watches are let go.
func (x *execution) settle(last bool) bool {
	start, n := time.Now(), 0
	for {
		synctest.Wait()
		x.moves.Add(1)
		if !x.absorb() {
			return false
		}
		if x.liftDue() {
			x.lastActive = time.Now()
			continue
		}
		if x.crashDue {
			x.crashDue = false
			if !x.restart() {
				return false
			}
			continue
		}
		if x.letOne() {
			if n++; n > x.spec.MaxMessages {
				x.fail("not idle after %d requests and watch events (a loop?)", n)
				return false
			}
			continue
		}
		if time.Since(start) > x.spec.Converge {
			x.fail("not idle %s after it began", x.spec.Converge)
			return false
		}
		wake := x.lastActive.Add(x.spec.Quiet)
		if at, ok := x.lagEnds(); ok && at.Before(wake) {
			wake = at
		}
		select {
		case <-x.net.arrived:
			continue
		case <-time.After(time.Until(wake)):
		}
		if time.Since(x.lastActive) < x.spec.Quiet {
			continue
		}
		if x.liftLag() || x.releaseLate(false) || (last && x.letHoldsGo()) {
			x.lastActive = time.Now()
			continue
		}
		if x.guardHolds() {
			// A turn the staleness guard sent back is still to come: its
			// cache has not shown the process's own write yet. What the
			// perturbation holds lets go (a Coalesce's watch relists: a real
			// one would not hold for minutes), and the driver waits for the
			// turn — the guard tries again within a second, and gives up
			// after controller.StaleWaitLimit — as the Converge bound allows.
			x.letHoldsGo()
			x.lastActive = time.Now()
			continue
		}
		return true
	}
}

// shutdown stops every process and the server, and keeps what the execution
// leaves behind.
func (x *execution) shutdown() {
	x.mu.Lock()
	x.over = true
	x.mu.Unlock()
	for _, p := range x.procs {
		if err := x.stop(p); err != nil && x.out.problem == "" {
			x.fail("%v", err)
		}
	}
	x.stopServer()
	synctest.Wait()
	x.out.history = x.hist.since(0)
	x.out.fired = x.fired
	x.mu.Lock()
	x.out.story, x.out.at = x.story, x.at
	x.mu.Unlock()
	// What the server made up — generated names, uids — is told as what it
	// stands for, the same in every run.
	r := identities(x.out.history).replacer()
	for i, line := range x.out.story {
		x.out.story[i] = r.Replace(line)
	}
	x.out.problem = r.Replace(x.out.problem)
}
