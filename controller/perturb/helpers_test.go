package perturb_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest/golden"
	"github.com/kubewire/kubewire/controller/perturb"
)

// The examples' resources: custom ones of a made-up group, and the built-in
// ones their controllers make.
var (
	configMaps = apiclient.ConfigMaps
	pvcs       = apiclient.Resource{Version: "v1", Name: "persistentvolumeclaims", Kind: "PersistentVolumeClaim", Namespaced: true}
	pods       = apiclient.Pods
	jobs       = apiclient.Resource{Group: "batch", Version: "v1", Name: "jobs", Kind: "Job", Namespaced: true}
)

// The built-in kinds, as much of them as the examples write.

type claim struct {
	apiclient.TypeMeta
	apiclient.ObjectMeta `json:"metadata"`
	Spec                 map[string]any `json:"spec"`
}

func (*claim) Resource() apiclient.Resource { return pvcs }

type job struct {
	apiclient.TypeMeta
	apiclient.ObjectMeta `json:"metadata"`
	Spec                 map[string]any `json:"spec"`
}

func (*job) Resource() apiclient.Resource { return jobs }

type configMap struct {
	apiclient.TypeMeta
	apiclient.ObjectMeta `json:"metadata"`
	Data                 map[string]string `json:"data,omitempty"`
}

func (*configMap) Resource() apiclient.Resource { return configMaps }

func custom(name, kind string) apiclient.Resource {
	return apiclient.Resource{Group: "example.com", Version: "v1", Name: name, Kind: kind, Namespaced: true}
}

// found checks that a buggy example's exploration failed under the kind of
// perturbation it was written for (others may find it too), and that the
// report is the one in testdata (go test -update rewrites it): the same
// report, run after run, is what the seed promises.
func found(t *testing.T, r *perturb.Report, kind perturb.Kind, name string) {
	t.Helper()
	if r.Reference != "" {
		t.Fatalf("the reference failed by itself:\n%s", r)
	}
	for _, f := range r.Failures {
		if f.Perturbation.Kind != kind {
			continue
		}
		if os.Getenv("KUBEWIRE_PERTURB") != "" {
			t.Log(r) // a replay: one perturbation, not the whole report
			return
		}
		golden.Check(t, filepath.Join("testdata", name+".golden"), r.String())
		return
	}
	t.Fatalf("no %s perturbation found the bug:\n%s", kind, r)
}

// passes checks that a fixed twin gets through every perturbation.
func passes(t *testing.T, r *perturb.Report) {
	t.Helper()
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if r.Executions == 0 {
		t.Fatalf("no perturbed execution ran:\n%s", r)
	}
}

// exploreApart runs perturb.Explore on the spec examples names, in a test of
// its own — a run of this test binary, TestExplore_for_an_example alone —
// and returns its report: Explore needs a *testing.T (each execution runs
// in a testing/synctest bubble, which only a test can start), and an
// Example has none. A failure to run it is the report's Reference.
func exploreApart(name string) *perturb.Report {
	out, err := os.CreateTemp("", "perturb-example-*.json")
	if err != nil {
		return &perturb.Report{Reference: err.Error()}
	}
	out.Close()
	defer os.Remove(out.Name())
	cmd := exec.Command(os.Args[0], "-test.run=^TestExplore_for_an_example$", "-test.count=1")
	cmd.Env = append(os.Environ(), "KUBEWIRE_PERTURB=", "KUBEWIRE_PERTURB_EXAMPLE="+name, "KUBEWIRE_PERTURB_EXAMPLE_OUT="+out.Name())
	if b, err := cmd.CombinedOutput(); err != nil {
		return &perturb.Report{Reference: fmt.Sprintf("%s: %v\n%s", name, err, b)}
	}
	b, err := os.ReadFile(out.Name())
	var r perturb.Report
	if err == nil {
		err = json.Unmarshal(b, &r)
	}
	if err != nil {
		return &perturb.Report{Reference: fmt.Sprintf("%s: %v", name, err)}
	}
	return &r
}

// examples are the specs the Examples explore (exploreApart).
var examples = map[string]func() perturb.Spec{
	"mirror fixed=false": func() perturb.Spec { return mirrorSpec(false) },
	"mirror fixed=true":  func() perturb.Spec { return mirrorSpec(true) },
}

// TestExplore_for_an_example is exploreApart's other half: run alone with
// KUBEWIRE_PERTURB_EXAMPLE naming an example, it explores it and writes the
// report, as JSON, to KUBEWIRE_PERTURB_EXAMPLE_OUT.
func TestExplore_for_an_example(t *testing.T) {
	name := os.Getenv("KUBEWIRE_PERTURB_EXAMPLE")
	if name == "" {
		t.Skip("run by the Examples (exploreApart), with KUBEWIRE_PERTURB_EXAMPLE set")
	}
	spec, ok := examples[name]
	if !ok {
		t.Fatalf("no example %q", name)
	}
	b, err := json.Marshal(perturb.Explore(t, spec()))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(os.Getenv("KUBEWIRE_PERTURB_EXAMPLE_OUT"), b, 0o600); err != nil {
		t.Fatal(err)
	}
}
