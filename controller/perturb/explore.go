package perturb

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Explore runs the reference execution of spec — the workload, no
// perturbation — and then one execution for each perturbation of the kinds
// spec.Kinds at each point the reference offers (plan), each in a synctest
// bubble of its own, and checks each against the oracle (oracle.go). It
// returns what it found; it fails t only when it cannot run at all (no Setup).
// Check the report: if err := perturb.Explore(t, spec).Err(); err != nil {
// t.Fatal(err) }.
//
// KUBEWIRE_PERTURB='seed=N only=ID' replays: the seed replaces spec.Seed, and
// only the perturbation named runs after the reference, its whole story (every
// hop of every stage) in t's log.
func Explore(t *testing.T, spec Spec) *Report {
	t.Helper()
	if spec.Setup == nil {
		t.Fatal("perturb: Spec.Setup is nil: give the function that builds the controller on a Manager")
	}
	spec = spec.withDefaults()
	only, err := replayFromEnv(&spec)
	if err != nil {
		t.Fatal(err)
	}
	r := &Report{Test: t.Name(), Seed: spec.Seed}
	ref := execute(t, spec, Perturbation{}, false)
	r.Writes, r.Events = len(ref.writes), len(ref.events)
	if ref.problem == "" && len(ref.failing) > 0 {
		keys := slices.Sorted(maps.Keys(ref.failing))
		ref.problem = fmt.Sprintf("its last Reconcile of %s failed (%s): a reference that does not converge cannot be the oracle", keys[0], ref.failing[keys[0]])
	}
	if ref.problem != "" {
		r.Reference = ref.problem
		r.Story = ref.story
		return r
	}
	want := endState(ref.history, spec.Ignore)
	wantIdle := idleStates(ref, spec.Ignore)
	refNames := identities(ref.history).replacer()
	plans := plan(ref, spec)
	if only != nil {
		plans = []Perturbation{*only}
	}
	downs := map[int]string{} // step → what went wrong under down/step
	for _, p := range plans {
		out := execute(t, spec, p, only != nil)
		r.Executions++
		if only != nil {
			t.Logf("perturb: %s, the whole story:\n%s", p.ID(), strings.Join(out.story, "\n"))
		}
		problem := out.problem
		if problem == "" {
			problem = idleDiffers(wantIdle, out, spec.Ignore)
		}
		if problem == "" {
			if d := diff(want, endState(out.history, spec.Ignore), 12); len(d) > 0 {
				problem = "the end state differs from the reference's:\n  " + strings.Join(d, "\n  ")
			}
		}
		if p.Kind == Down {
			downs[p.Step] = problem
		}
		if problem != "" && p.Kind == Stale && p.Step > 0 && downs[p.Step] == problem {
			continue // the stop across the step alone did it (down/i, reported)
		}
		if problem != "" {
			r.Failures = append(r.Failures, Failure{Perturbation: p, About: refNames.Replace(about(p, ref)), Problem: problem,
				Story: around(out.story, out.at), Span: span(out.story, out.at)})
		}
	}
	return r
}

// idleStates are the reference's states each time it was idle before a step
// (after the start, after each step but the last), as an end state compares
// them: a workload that ends by deleting an object leaves an end state with
// nothing of it or its children, and what the controller did to them is
// compared here.
func idleStates(ref outcome, ignore []string) []map[string]object {
	var out []map[string]object
	for _, rv := range ref.idle[:max(len(ref.idle)-1, 0)] {
		out = append(out, endState(upTo(ref.history, rv), ignore))
	}
	return out
}

// idleDiffers compares an execution's idle states before each step with the
// reference's, skipping those where the perturbation held something back;
// "" when they are the same.
func idleDiffers(want []map[string]object, out outcome, ignore []string) string {
	for i, rv := range out.idle {
		if i >= len(want) || rv < 0 {
			continue
		}
		if d := diff(want[i], endState(upTo(out.history, rv), ignore), 12); len(d) > 0 {
			return fmt.Sprintf("idle %s, the state differs from the reference's:\n  %s", afterStep(i), strings.Join(d, "\n  "))
		}
	}
	return ""
}

// upTo is the part of hist at or before rv.
func upTo(hist []change, rv int64) []change {
	i := 0
	for i < len(hist) && hist[i].rv <= rv {
		i++
	}
	return hist[:i]
}

// replayFromEnv reads KUBEWIRE_PERTURB: "seed=N" and "only=ID", separated by
// spaces.
func replayFromEnv(spec *Spec) (*Perturbation, error) {
	env := os.Getenv("KUBEWIRE_PERTURB")
	var only *Perturbation
	for _, f := range strings.Fields(env) {
		k, v, _ := strings.Cut(f, "=")
		switch k {
		case "seed":
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil || n == 0 {
				return nil, fmt.Errorf("perturb: KUBEWIRE_PERTURB: seed=%q is not a positive number", v)
			}
			spec.Seed = n
		case "only":
			p, err := ParseID(v)
			if err != nil {
				return nil, fmt.Errorf("perturb: KUBEWIRE_PERTURB: %w", err)
			}
			only = &p
		default:
			return nil, fmt.Errorf("perturb: KUBEWIRE_PERTURB=%q: want seed=N and only=ID", env)
		}
	}
	return only, nil
}

// span is how many lines of story lie between the perturbation, at, and the
// failure (its ✗ line; else the story's end).
func span(story []string, at int) int {
	at = max(at, 0)
	for i := at; i < len(story); i++ {
		if strings.HasPrefix(story[i], "✗ ") {
			return i - at
		}
	}
	return len(story) - at
}

// around is the part of a story around where the perturbation happened: a
// few lines before it, and what followed.
func around(story []string, at int) []string {
	if at < 0 {
		at = len(story)
	}
	from, to := max(0, at-10), min(len(story), at+40)
	out := append([]string(nil), story[from:to]...)
	if from > 0 {
		out = append([]string{"…"}, out...)
	}
	if to < len(story) {
		out = append(out, "…", story[len(story)-1])
	}
	return out
}
