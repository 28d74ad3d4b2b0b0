package perturb_test

import (
	"strings"
	"testing"

	"github.com/kubewire/kubewire/controller/perturb"
)

func TestParseID_reads_back_what_ID_writes(t *testing.T) {
	for _, p := range []perturb.Perturbation{
		{Kind: perturb.Crash, Write: 3},
		{Kind: perturb.Down, Step: 2},
		{Kind: perturb.Stale, Write: 3, Coll: "deployments.apps", Version: 12},
		{Kind: perturb.Stale, Step: 2, Coll: "pods", Version: 0},
		{Kind: perturb.Coalesce, Coll: "pods", Key: "default/web-1", Version: 7},
		{Kind: perturb.Coalesce, Coll: "namespaces", Key: "demo", Version: 1},
		{Kind: perturb.Conflict, Write: 1}, {Kind: perturb.Throttle, Write: 2}, {Kind: perturb.Unavailable, Write: 3},
		{Kind: perturb.Internal, Write: 4}, {Kind: perturb.Timeout, Write: 5},
		{Kind: perturb.Cut, Event: 6}, {Kind: perturb.Expire, Event: 7},
	} {
		got, err := perturb.ParseID(p.ID())
		if err != nil || got != p {
			t.Errorf("ParseID(%q) = %+v, %v; want %+v", p.ID(), got, err, p)
		}
	}
}

func TestParseID_says_what_an_ID_looks_like(t *testing.T) {
	for _, id := range []string{"", "crash", "crash/x", "stale/3/pods", "stale/3/pods@x", "coalesce/pods", "reboot/1", "cut/", "stale/3/pods@-1", "crash/0", "down/-2", "stale/step0/pods@1", "stale/step/pods@1", "stale/step-1/pods@1"} {
		_, err := perturb.ParseID(id)
		if err == nil || !strings.Contains(err.Error(), "crash/3") {
			t.Errorf("ParseID(%q): %v, want an error with examples", id, err)
		}
	}
}

// FuzzParseID: whatever it is given, ParseID does not panic, and what it
// accepts it writes back to an ID that reads the same.
func FuzzParseID(f *testing.F) {
	for _, s := range []string{"crash/3", "down/1", "stale/3/deployments.apps@12", "stale/step2/pods@0", "coalesce/pods/default/web-1@7", "expire/5", "coalesce/a/b/c@d@1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		p, err := perturb.ParseID(id)
		if err != nil {
			return
		}
		again, err := perturb.ParseID(p.ID())
		if err != nil || again != p {
			t.Fatalf("ParseID(%q) = %+v, whose ID %q reads back as %+v, %v", id, p, p.ID(), again, err)
		}
	})
}

// A report leads with the kind whose first failure tells the shortest story
// from the perturbation to what went wrong — the clearest one to read — and
// says which kinds found the controller wanting.
func TestReport_leads_with_the_shortest_story_and_names_the_kinds(t *testing.T) {
	r := &perturb.Report{Test: "TestX", Seed: 1, Executions: 3, Failures: []perturb.Failure{
		{Perturbation: perturb.Perturbation{Kind: perturb.Crash, Write: 2}, Problem: "long", Span: 30},
		{Perturbation: perturb.Perturbation{Kind: perturb.Crash, Write: 3}, Problem: "longer", Span: 40},
		{Perturbation: perturb.Perturbation{Kind: perturb.Timeout, Write: 1}, Problem: "short", Span: 4},
	}}
	s := r.String()
	first, _, _ := strings.Cut(s, "\n")
	if got, want := first, "perturb: seed 1: the reference made 0 writes and was told 0 watch events; 3 perturbed executions, 3 failed: found by timeout (1), crash (2)"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	if i, j := strings.Index(s, "FAIL timeout/1"), strings.Index(s, "FAIL crash/2"); i < 0 || j < 0 || i > j {
		t.Errorf("timeout/1 (4 hops) should lead, crash/2 (30 hops) follow:\n%s", s)
	}
}
