package perturb

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
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
	lastActive time.Time // the last write or watch event
	checkedAt  int64     // the version invariants were last checked at
	state      objects   // the server's objects at checkedAt

	mu    sync.Mutex // guards the story: hops come from every goroutine
	over  bool       // the execution is shutting down: hops are no longer told
	story []string
	at    int // where in the story the perturbation happened, -1 before

	out outcome
}

// outcome is what an execution leaves behind: plain values, read after the
// bubble is gone.
type outcome struct {
	writes  []point  // every write of a process, in order
	events  []point  // every watch event a process was delivered, in order
	watched []string // the collections processes listed or watched
	history []change
	problem string // empty when every check passed
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
	synctest.Test(t, func(*testing.T) {
		x := &execution{spec: spec, plan: plan, seed: spec.Seed, rng: rand.New(rand.NewPCG(spec.Seed, 0x9e3779b9)), at: -1, verbose: verbose}
		x.run()
		out = x.out
	})
	return out
}

func (x *execution) run() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	x.ctx = ctx
	h, stop := apitest.NewHandler(nil)
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
		if !x.settle(false) {
			return
		}
		down := x.plan.Kind == Down && x.plan.Step == i+1
		if down {
			x.fire()
			x.say(x.cur, "✂ stops before step %d", i+1)
			x.net.kill(x.cur)
			if err := x.stop(x.cur); err != nil {
				x.fail("%v", err)
				return
			}
		}
		x.say(nil, "step %d: %s", i+1, st.Name)
		x.lastActive = time.Now()
		err := st.Do(ctx, x.client)
		if down {
			if err := x.start(nil); err != nil {
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
	x.settle(true)
}

// settle lets things through until the controller is idle: Quiet of fake time
// with nothing written and no watch event delivered. last: the workload is
// done, and held watches are let go.
func (x *execution) settle(last bool) bool {
	start, n := time.Now(), 0
	for {
		synctest.Wait()
		if !x.absorb() {
			return false
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
		select {
		case <-x.net.arrived:
			continue
		case <-time.After(time.Until(x.lastActive.Add(x.spec.Quiet))):
		}
		if time.Since(x.lastActive) < x.spec.Quiet {
			continue
		}
		if x.liftLag() || (last && x.letHoldsGo()) {
			x.lastActive = time.Now()
			continue
		}
		return true
	}
}

// letOne lets one thing through: the seed's choice among the held requests
// and the watch events, and only when there are none, a worker that has
// finished a Reconcile (finish says why).
func (x *execution) letOne() bool {
	calls, streams, finishes := x.net.enabled()
	k := len(calls) + len(streams)
	if k == 0 {
		if len(finishes) == 0 {
			return false
		}
		x.net.finished(finishes[0])
		return true
	}
	i := x.rng.IntN(k)
	if i < len(calls) {
		x.letCall(calls[i])
	} else {
		x.deliver(streams[i-len(calls)])
	}
	return true
}

// letCall lets a held request through, with the perturbation's fault if this
// is its write.
func (x *execution) letCall(c *call) {
	v := verdict{}
	if c.isWrite() {
		x.lastActive = time.Now()
		k := len(x.out.writes) + 1
		c.nth = k
		w := point{what: c.describe(), method: c.req.Method, coll: c.t.coll(), key: objectKey(c.t.namespace, c.t.name), conditional: conditional(c.req, c.body)}
		x.out.writes = append(x.out.writes, w)
		if x.plan.Write == k && !x.fired {
			switch x.plan.Kind {
			case Crash, Stale:
				v.crash, x.crashDue = true, true
				x.fire()
			case Conflict, Throttle, Unavailable, Internal, Timeout:
				if v.fault = faultFor(x.plan, w); v.fault != nil {
					x.fire()
				}
			}
		}
	}
	x.let = c
	x.net.let(c, v)
}

// deliver delivers a stream's next event, or its end, unless the perturbation
// holds, replaces or cuts it. The story is told before the client is woken:
// what the client does with the event comes after it, however the goroutines
// run.
func (x *execution) deliver(s *stream) {
	n := x.net
	n.mu.Lock()
	defer n.mu.Unlock()
	x.lastActive = time.Now()
	line := s.next()
	if line == nil {
		x.say(s.proc, "← %s watch ended", s.t.coll())
		s.put(nil)
		return
	}
	ev := parseEvent(line)
	v := x.hist.ordinal(ev.version())
	change := ev.typ == "ADDED" || ev.typ == "MODIFIED" || ev.typ == "DELETED"
	p := x.plan
	if p.Kind == Coalesce && !x.fired && change && s.t.coll() == p.Coll && ev.key() == p.Key && v == p.Version {
		x.fire()
		x.say(s.proc, "✂ %s %s %s v%d is held back, with the rest of the watch, until %s changes again", s.t.coll(), ev.typ, ev.key(), v, ev.key())
		s.hold = &coalesce{key: p.Key, rv: ev.version()}
		return
	}
	i := 0
	if change && !s.initial {
		x.out.events = append(x.out.events, point{what: s.t.coll() + " " + ev.typ + " " + ev.key(), coll: s.t.coll(), key: ev.key(), typ: ev.typ, version: v})
		i = len(x.out.events)
	}
	if ev.initialEnd {
		s.initial = false
	}
	switch {
	case p.Kind == Expire && p.Event == i && i > 0 && !x.fired:
		x.fire()
		x.say(s.proc, "✂ %s %s %s v%d is replaced by 410 Expired", s.t.coll(), ev.typ, ev.key(), v)
		s.put(expiredLine())
		s.breakOff(io.EOF)
		return
	case ev.typ == "BOOKMARK":
		x.say(s.proc, "← %s BOOKMARK v%d", s.t.coll(), v)
	case ev.typ == "ERROR":
		x.say(s.proc, "← %s ERROR", s.t.coll())
	default:
		x.say(s.proc, "← %s %s %s v%d", s.t.coll(), ev.typ, ev.key(), v)
	}
	if p.Kind == Cut && p.Event == i && i > 0 && !x.fired {
		x.fire()
		x.say(s.proc, "✂ the watch of %s breaks", s.t.coll())
		s.put(line)
		s.breakOff(io.ErrUnexpectedEOF)
		return
	}
	s.put(line)
}

// told tells a call and its answer.
func (x *execution) told(c *call) {
	if c.nth > 0 {
		x.say(c.proc, "→ %s %d (write %d)", c.describe(), c.code, c.nth)
	} else {
		x.say(c.proc, "→ %s %d", c.describe(), c.code)
	}
}

// fire notes that the perturbation happened here.
func (x *execution) fire() {
	x.fired = true
	x.mu.Lock()
	x.at = len(x.story)
	x.mu.Unlock()
}

// absorb takes in what the last thing let through did: the story's line for a
// request, the lagging watches' new events, held watches whose object has
// changed, and the invariants at every new version. false: one failed.
func (x *execution) absorb() bool {
	x.net.feed()
	if c := x.let; c != nil {
		x.let = nil
		if c.isWrite() {
			x.out.writes[len(x.out.writes)-1].version = x.hist.ordinal(x.hist.last())
		}
		x.noteWatched(c)
	}
	x.releaseHolds(false)
	return x.checkInvariants()
}

// noteWatched remembers which collections the processes list and watch.
func (x *execution) noteWatched(c *call) {
	if c.req.Method != "GET" || c.t.name != "" {
		return
	}
	for _, w := range x.out.watched {
		if w == c.t.coll() {
			return
		}
	}
	x.out.watched = append(x.out.watched, c.t.coll())
}

// releaseHolds ends the watches a Coalesce holds once their object has
// changed again (or, with all, anyway): 410 Expired, and the Reflector's relist
// shows the object as it is now.
func (x *execution) releaseHolds(all bool) bool {
	n := x.net
	n.mu.Lock()
	var released []*stream
	for _, s := range n.streams {
		h := s.hold
		if h == nil {
			continue
		}
		changed := false
		for _, c := range x.hist.since(h.rv) {
			changed = changed || (c.coll == s.t.coll() && c.key() == h.key)
		}
		if changed || all {
			s.hold, s.queued, s.ended = nil, [][]byte{expiredLine()}, true
			s.cancel()
			released = append(released, s)
		}
	}
	n.mu.Unlock()
	for _, s := range released {
		x.say(s.proc, "✂ the held watch of %s ends with 410 Expired: the relist shows %s as it is now", s.t.coll(), x.plan.Key)
	}
	return len(released) > 0
}

func (x *execution) letHoldsGo() bool { return x.releaseHolds(true) }

// letGo ends what the perturbation still holds back: a held watch, a lag.
func (x *execution) letGo() bool {
	held := x.releaseHolds(true)
	return x.liftLag() || held
}

// liftLag lifts the current process's stale view once it is idle: its watches
// catch up.
func (x *execution) liftLag() bool {
	l := x.cur.lag
	x.net.mu.Lock()
	lift := l != nil && !l.lifted
	if lift {
		l.lifted = true
	}
	x.net.mu.Unlock()
	if lift {
		x.say(x.cur, "its view of %s catches up", l.coll)
	}
	return lift
}

// restart crashes the current process and starts a fresh one, with the
// perturbation's stale view for Stale.
func (x *execution) restart() bool {
	old := x.cur
	x.say(old, "✂ crashes before it reads the answer to write %d", x.plan.Write)
	x.net.kill(old)
	if err := x.stop(old); err != nil {
		x.fail("%v", err)
		return false
	}
	var l *lag
	if x.plan.Kind == Stale {
		l = &lag{coll: x.plan.Coll, rv: x.hist.version(x.plan.Version), v: x.plan.Version}
	}
	if err := x.start(l); err != nil {
		x.fail("%v", err)
		return false
	}
	x.lastActive = time.Now()
	return true
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

// fail records the execution's problem (the first one).
func (x *execution) fail(format string, args ...any) {
	if x.out.problem == "" {
		x.out.problem = fmt.Sprintf(format, args...)
		x.say(nil, "✗ %s", x.out.problem)
	}
}

// say adds a line to the story, prefixed with the process it is about.
func (x *execution) say(p *process, format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	if p != nil {
		line = fmt.Sprintf("[%d] %s", p.n, line)
	}
	x.mu.Lock()
	x.story = append(x.story, strings.TrimRight(line, " "))
	x.mu.Unlock()
}
