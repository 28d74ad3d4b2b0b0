package perturb

import (
	"fmt"
	"slices"
	"strings"
)

// plan lists the perturbations to try, from what the reference did: every
// write is a point for a crash and for each API fault; every step, for a
// Down; every watch event delivered, for a cut and a 410; every state of a
// watched object that a later change replaced, for a coalesce; and every
// crash point and every step, with every earlier state of each watched
// collection, for a stale view — the oldest one alone
// for a collection the reference never read at resourceVersion "0", since
// only such a read shows the lag's version (a consistent read shows none, a
// read not older than what the process has seen shows none after a restart,
// and a watch holds at whichever). In the order of Kinds, then of the points.
func plan(ref outcome, spec Spec) []Perturbation {
	var out []Perturbation
	for _, kind := range spec.Kinds {
		switch kind {
		case Crash, Conflict, Throttle, Unavailable, Internal, Timeout:
			for k, w := range ref.writes {
				if kind == Crash || faultFor(Perturbation{Kind: kind}, w) != nil {
					out = append(out, Perturbation{Kind: kind, Write: k + 1})
				}
			}
		case Late:
			for k, w := range ref.writes {
				if slices.Contains(ref.watched, w.coll) {
					out = append(out, Perturbation{Kind: Late, Write: k + 1})
				}
			}
		case Down:
			for i, st := range spec.Workload {
				if !st.restart { // a Restart step is a Down already
					out = append(out, Perturbation{Kind: Down, Step: i + 1})
				}
			}
		case Cut, Expire:
			for i := range ref.events {
				out = append(out, Perturbation{Kind: kind, Event: i + 1})
			}
		case Coalesce:
			out = append(out, coalesces(ref)...)
		case Stale:
			// After each write, and across each step as Down: a controller
			// that only reads before it deletes (a garbage collector) writes
			// nothing before the view that misleads it.
			for k, w := range ref.writes {
				out = append(out, stales(ref, Perturbation{Kind: Stale, Write: k + 1}, w.version)...)
			}
			for i, v := range ref.steps {
				if i < len(spec.Workload) && !spec.Workload[i].restart {
					out = append(out, stales(ref, Perturbation{Kind: Stale, Step: i + 1}, v)...)
				}
			}
		}
	}
	return out
}

// stales are the stale views of each watched collection a fresh process can
// start with at p's point, the state then at version now.
func stales(ref outcome, p Perturbation, now int) []Perturbation {
	var out []Perturbation
	for _, coll := range ref.watched {
		vs := staleVersions(ref.history, coll, now)
		if !ref.atZero[coll] && len(vs) > 1 {
			// Nothing reads it at "0": the lag's version changes nothing
			// (its watches hold all the same).
			vs = vs[:1]
		}
		for _, v := range vs {
			p.Coll, p.Version = coll, v
			out = append(out, p)
		}
	}
	return out
}

// coalesces are the states a process was told of that a later change of the
// same object replaced: each can be hidden.
func coalesces(ref outcome) []Perturbation {
	var out []Perturbation
	seen := map[string]bool{}
	for _, e := range ref.events {
		if e.typ == "DELETED" {
			continue
		}
		p := Perturbation{Kind: Coalesce, Coll: e.coll, Key: e.key, Version: e.version}
		if seen[p.ID()] || !changedAfter(ref.history, e.coll, e.key, e.version) {
			continue
		}
		seen[p.ID()] = true
		out = append(out, p)
	}
	return out
}

func changedAfter(hist []change, coll, key string, v int) bool {
	for _, c := range states(hist) {
		if c.v > v && c.coll == coll && c.key() == key {
			return true
		}
	}
	return false
}

// versioned is a change to state with its version (ordinal).
type versioned struct {
	change
	v int
}

// states are the changes to state in hist, each with its version.
func states(hist []change) []versioned {
	var out []versioned
	for _, c := range hist {
		if !isNote(c.coll) {
			out = append(out, versioned{c, len(out) + 1})
		}
	}
	return out
}

// staleVersions are the versions at which coll stood in a state of its own
// before version now: the version before each change to it, the same state
// once.
func staleVersions(hist []change, coll string, now int) []int {
	var out []int
	seen := map[string]bool{}
	state := map[string]int{} // key → version, as of the change being read
	for _, c := range states(hist) {
		if c.v > now {
			break
		}
		if c.coll != coll {
			continue
		}
		if fp := fingerprint(state); !seen[fp] {
			seen[fp] = true
			out = append(out, c.v-1)
		}
		if c.typ == "DELETED" {
			delete(state, c.key())
		} else {
			state[c.key()] = c.v
		}
	}
	return out
}

func fingerprint(state map[string]int) string {
	var b strings.Builder
	for _, k := range sortedKeys(state) {
		fmt.Fprintf(&b, "%s@%d ", k, state[k])
	}
	return b.String()
}

// about says in words what p does, at the point of the reference it names.
func about(p Perturbation, ref outcome) string {
	write := func() string {
		if p.Write < 1 || p.Write > len(ref.writes) {
			return fmt.Sprintf("write %d", p.Write)
		}
		return fmt.Sprintf("write %d (%s)", p.Write, ref.writes[p.Write-1].what)
	}
	event := func() string {
		if p.Event < 1 || p.Event > len(ref.events) {
			return fmt.Sprintf("watch event %d", p.Event)
		}
		e := ref.events[p.Event-1]
		return fmt.Sprintf("watch event %d (%s v%d)", p.Event, e.what, e.version)
	}
	switch p.Kind {
	case Crash:
		return "the process crashes right after " + write() + " is answered; a fresh one starts"
	case Down:
		return fmt.Sprintf("the process is stopped before step %d and a fresh one starts after it", p.Step)
	case Late:
		return "the watch event of " + write() + " is held back, past the next Reconcile, then delivered"
	case Stale:
		if p.Step > 0 {
			return fmt.Sprintf("the process is stopped before step %d; the fresh one started after it has a view of %s lagging at v%d%s, then catching up",
				p.Step, p.Coll, p.Version, before(ref.history, p.Coll, p.Version))
		}
		return fmt.Sprintf("the process crashes right after %s is answered; the fresh one's view of %s lags at v%d%s, then catches up",
			write(), p.Coll, p.Version, before(ref.history, p.Coll, p.Version))
	case Coalesce:
		return fmt.Sprintf("the state of %s %s written at v%d is never seen: the watch holds from it until %s changes again, then relists",
			p.Coll, p.Key, p.Version, p.Key)
	case Conflict, Throttle, Unavailable, Internal:
		f := faultFor(p, point{conditional: true})
		return fmt.Sprintf("%s is answered %d %s%s and not made", write(), f.code, f.reason, retryAfter(f))
	case Timeout:
		return write() + " is made, and answered 504 Timeout"
	case Cut:
		return "the watch breaks right after " + event()
	case Expire:
		return event() + " is replaced by 410 Expired: the Reflector relists"
	}
	return p.ID()
}

func retryAfter(f *fault) string {
	if f.retryAfter == "" {
		return ""
	}
	return " (Retry-After: " + f.retryAfter + ")"
}

// before names the change a stale view misses first: " (before pods ADDED
// default/web)".
func before(hist []change, coll string, v int) string {
	for _, c := range states(hist) {
		if c.v > v && c.coll == coll {
			return fmt.Sprintf(" (before v%d: %s %s %s)", c.v, c.coll, c.typ, c.key())
		}
	}
	return ""
}
