package perturb_test

import (
	"os"
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
