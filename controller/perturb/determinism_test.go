package perturb_test

import (
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/controller/perturb"
)

// The same Spec and seed give the same report, run after run. Every golden
// file checks that once a run against the report committed; this test runs
// the backup and pool examples (whose Jobs and Pods have generated names)
// twice, and with KUBEWIRE_PERTURB_RUNS=N every shipped example, the buggy
// ones and their twins, N times each.
func TestReports_are_the_same_run_after_run(t *testing.T) {
	runs, specs := 2, map[string]perturb.Spec{"backup": backupSpec(false), "pool": poolSpec(true)}
	if n, err := strconv.Atoi(os.Getenv("KUBEWIRE_PERTURB_RUNS")); err == nil && n > 1 {
		runs = n
		for _, fixed := range []bool{false, true} {
			twin := map[bool]string{false: "", true: " fixed"}[fixed]
			specs["backup"+twin], specs["catalog"+twin], specs["registrar"+twin] = backupSpec(fixed), catalogSpec(fixed), registrarSpec(fixed)
			specs["greeter"+twin], specs["sweeper"+twin+" by list"], specs["starter"+twin] = greeterSpec(fixed), sweeperSpec(map[bool]confirm{false: trustCache, true: listThem}[fixed]), starterSpec(fixed)
			specs["quota"+twin], specs["pool"+map[bool]string{false: " unguarded", true: ""}[fixed]] = quotaSpec(fixed), poolSpec(fixed)
		}
		specs["foo"], specs["podrestart"], specs["sweeper fixed by get"] = fooSpec(), podrestartSpec(), sweeperSpec(getIt)
		atZero := fooSpec()
		atZero.FirstListAtZero = true
		specs["foo at zero"] = atZero
	}
	for _, name := range slices.Sorted(maps.Keys(specs)) {
		spec := specs[name]
		first := perturb.Explore(t, spec).String()
		for i := 2; i <= runs; i++ {
			if got := perturb.Explore(t, spec).String(); got != first {
				t.Fatalf("%s: run %d's report differs from run 1's:\n--- run %d\n%s--- run 1\n%s", name, i, i, got, first)
			}
		}
	}
}

// A different seed makes other choices where several things could happen
// next — here, which of two informers' watch events is delivered first, or
// whether a request goes before a watch event — and tells another story.
func TestSeed_picks_the_order(t *testing.T) {
	stories := map[string]bool{}
	for seed := uint64(1); seed <= 2; seed++ {
		spec := starterSpec(false)
		spec.Seed = seed
		r := perturb.Explore(t, spec)
		if len(r.Failures) == 0 {
			t.Fatalf("seed %d found nothing:\n%s", seed, r)
		}
		stories[strings.Join(r.Failures[0].Story, "\n")] = true
	}
	if len(stories) < 2 {
		t.Fatalf("two seeds told one story")
	}
}
