package perturb

import (
	"fmt"
	"strings"

	"github.com/kubewire/kubewire/controller/trace"
	"github.com/kubewire/kubewire/listwatch"
)

// The story: one line a hop, as a report tells it (doc.go, "Reading a
// report"). Lines come from the driver, from the goroutines that make
// requests, and from every stage's trace; each is said before what it causes
// can run, so the order is the same in every run.

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

// hop takes one trace Event of a process. The story keeps the hops that say
// what a process made of what it was told — a Reconcile's outcome, a list
// taken in, a watch that failed — and leaves out the rest (each stage's
// handing on), which the gate's own lines already pin down.
func (x *execution) hop(p *process, e trace.Event) {
	x.net.mu.Lock()
	dead := p.dead
	x.net.mu.Unlock()
	x.mu.Lock()
	over := x.over
	x.mu.Unlock()
	if dead || over {
		return // what a process does as it dies is nobody's business
	}
	var line string
	if x.verbose {
		x.say(p, "  · %s", e)
	}
	switch e.Stage {
	case trace.Controller:
		line = outcomeOf(e)
	case trace.Reflector:
		switch e.Step.Op {
		case listwatch.OpListed:
			line = fmt.Sprintf("%s: listed %d", e.Informer, e.Step.Items)
		case listwatch.OpError, listwatch.OpFallback:
			line = fmt.Sprintf("%s: %s: %v → %s", e.Informer, e.Step.Op, e.Step.Err, e.Step.Next)
		}
	case trace.Informer:
		line = e.String()
	}
	if line != "" {
		x.say(p, "  %s", line)
	}
	if e.Stage == trace.Controller && e.Verb == "reconcile" && e.Outcome == "stale" {
		x.sentBack(p, e.Key, true)
	}
	if e.Stage == trace.Controller && e.Verb == "reconcile" && ended(e.Outcome) {
		x.sentBack(p, e.Key, false)
		x.lastOutcome(e)
		x.net.hold(p, e.Key)
	}
}

// sentBack keeps which Requests of the current process the staleness guard
// has sent back (back) and which have been reconciled since: a turn the
// guard holds is not idle (settle).
func (x *execution) sentBack(p *process, key string, back bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if p != x.cur {
		return
	}
	if x.guarded == nil {
		x.guarded = map[string]bool{}
	}
	if back {
		x.guarded[key] = true
	} else {
		delete(x.guarded, key)
	}
}

// lastOutcome keeps whether e, a Reconcile that returned, failed: a key whose
// last Reconcile failed has not converged, and a reference that leaves one
// cannot be the oracle (Explore says so). A Terminal error is not such a
// failure: it is an end state the controller chose (a spec it cannot act
// on), not retried by design.
func (x *execution) lastOutcome(e trace.Event) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.out.failing == nil {
		x.out.failing = map[string]string{}
	}
	switch e.Outcome {
	case "error", "dropped":
		x.out.failing[e.Key] = fmt.Sprintf("%s: %v", e.Outcome, e.Err)
	default:
		delete(x.out.failing, e.Key)
	}
}

// ended says whether a reconcile's outcome is told as a Reconcile returns, the
// point where finish holds its worker. Not "start", nor "stale": the staleness
// guard requeued the Request without calling Reconcile, and it tells so with
// the controller's trace lock held — a handler's Request waits on that lock,
// in a way synctest.Wait does not count as blocked, so a worker held there
// would stop the whole execution.
func ended(outcome string) bool {
	switch outcome {
	case "ok", "requeue", "error", "terminal", "dropped":
		return true
	}
	return false
}

// outcomeOf is a reconcile's hop without its duration.
func outcomeOf(e trace.Event) string {
	if e.Verb != "reconcile" {
		return ""
	}
	// A Reconcile that did nothing is left out: whether a handler's Request
	// came before or after the worker took the one before is up to the
	// scheduler, and so is whether the same Request is reconciled once or
	// twice (finish, in network.go, makes the second one a no-op).
	switch e.Outcome {
	case "error":
		return fmt.Sprintf("reconcile %s: error: %v", e.Key, e.Err)
	case "terminal":
		return fmt.Sprintf("reconcile %s: terminal error: %v", e.Key, e.Err)
	case "dropped":
		return fmt.Sprintf("reconcile %s: dropped: %v", e.Key, e.Err)
	}
	return ""
}
