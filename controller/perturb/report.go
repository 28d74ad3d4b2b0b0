package perturb

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Report is what Explore found. Its String is the same for the same Spec and
// seed, run after run.
type Report struct {
	Test       string // the test that explored, for the replay line
	Seed       uint64
	Writes     int    // what the reference wrote
	Events     int    // the watch events the reference's processes were told
	Executions int    // perturbed executions run
	Reference  string // what went wrong in the reference itself, if anything
	Story      []string
	Failures   []Failure
}

// Failure is one perturbation the controller did not get through.
type Failure struct {
	Perturbation Perturbation
	About        string   // what the perturbation did, in words
	Problem      string   // what went wrong: the invariant, the bound, the end state's difference
	Story        []string // the execution around the perturbation (doc.go: reading a story)
	// Span is how many lines the story took from the perturbation to what
	// went wrong (to its end, for an end state that differs): the report
	// leads with the kind whose first failure took fewest.
	Span int
}

// Err is nil when the reference and every perturbed execution passed, and
// the report otherwise.
func (r *Report) Err() error {
	if r.Reference == "" && len(r.Failures) == 0 {
		return nil
	}
	return errors.New(r.String())
}

// String tells the whole report: a summary line, which names the kinds that
// found something; for a failed reference its story; else, for each kind of
// perturbation that failed, its first failure in full — what it did, what
// went wrong, the line that replays it and the story around it — and the
// others of that kind one line each. The kind whose first failure has the
// shortest Span comes first (ties: in the order of Kinds): the clearest story
// of what the controller does wrong, whichever kind found it.
func (r *Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "perturb: seed %d: the reference made %d writes and was told %d watch events", r.Seed, r.Writes, r.Events)
	if r.Reference != "" {
		fmt.Fprintf(&b, "; it failed by itself: %s\n", r.Reference)
		writeIndented(&b, "  ", r.Story)
		return b.String()
	}
	var kinds []Kind
	byKind := map[Kind][]Failure{}
	for _, f := range r.Failures {
		k := f.Perturbation.Kind
		if byKind[k] == nil {
			kinds = append(kinds, k)
		}
		byKind[k] = append(byKind[k], f)
	}
	sort.SliceStable(kinds, func(i, j int) bool { return byKind[kinds[i]][0].Span < byKind[kinds[j]][0].Span })
	fmt.Fprintf(&b, "; %d perturbed executions, %d failed", r.Executions, len(r.Failures))
	for i, k := range kinds {
		sep := ", "
		if i == 0 {
			sep = ": found by "
		}
		fmt.Fprintf(&b, "%s%s (%d)", sep, k, len(byKind[k]))
	}
	b.WriteString("\n")
	for _, k := range kinds {
		first := byKind[k][0]
		fmt.Fprintf(&b, "\nFAIL %s: %s\n", first.Perturbation.ID(), first.About)
		writeIndented(&b, "  ", strings.Split(first.Problem, "\n"))
		fmt.Fprintf(&b, "  replay: %s\n", r.replay(first.Perturbation))
		b.WriteString("  story:\n")
		writeIndented(&b, "    ", first.Story)
		for _, f := range byKind[k][1:] {
			fmt.Fprintf(&b, "  also %s: %s\n", f.Perturbation.ID(), gist(f.Problem))
		}
	}
	return b.String()
}

// gist is a problem in one line: its first, and for a list, the list's first
// entry.
func gist(problem string) string {
	lines := strings.Split(problem, "\n")
	if len(lines) > 1 && strings.HasSuffix(lines[0], ":") {
		return lines[0] + " " + strings.TrimSpace(lines[1])
	}
	return lines[0]
}

// replay is the command that runs one perturbation again, alone.
func (r *Report) replay(p Perturbation) string {
	parts := strings.Split(r.Test, "/")
	for i, s := range parts {
		parts[i] = "^" + s + "$"
	}
	return fmt.Sprintf("KUBEWIRE_PERTURB='seed=%d only=%s' go test -run '%s' .", r.Seed, p.ID(), strings.Join(parts, "/"))
}

func writeIndented(b *strings.Builder, indent string, lines []string) {
	for _, l := range lines {
		b.WriteString(indent + l + "\n")
	}
}
