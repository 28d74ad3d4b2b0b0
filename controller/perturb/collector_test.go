package perturb_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/controller/perturb"
)

// A collector deletes the settings of a Project that is gone: every
// ConfigMap labeled example.com/project=NAME whose Project NAME does not
// exist. It only reads, until it deletes: in a run where nothing is orphaned
// it writes nothing at all — and before issue 38 it was explored under no
// crash and no stale view, since those came only after writes.
//
// The bug is the sweeper's (sweeper_test.go), in a garbage collector: "the
// Project is gone" is read from the cache. A process started against an API
// server whose watch cache lags — a rollout of the controller, down/i — can
// list the settings before it lists their Project, and deletes the settings
// of a Project that exists. stale/stepN finds it: the process is stopped
// across step N, and the fresh one's view of the Projects lags. It takes a
// first list that may be stale (Spec.FirstListAtZero, as client-go's LIST).
// The fix asks the API server (a GET, never served stale) before it deletes.

var projects = custom("projects", "Project")

const projectLabel = "example.com/project"

type project struct {
	apiclient.TypeMeta
	apiclient.ObjectMeta `json:"metadata"`
}

func (*project) Resource() apiclient.Resource { return projects }

type collector struct {
	client   *apiclient.Client
	settings *informer.Lister[configMap]
	projects *informer.Lister[project]
	fixed    bool
}

func (r *collector) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	c, err := r.settings.Get(req.Namespace, req.Name)
	if err != nil {
		return controller.Result{}, apiclient.IgnoreNotFound(err)
	}
	owner := c.Labels[projectLabel]
	if owner == "" {
		return controller.Result{}, nil // not a Project's
	}
	if _, err := r.projects.Get(req.Namespace, owner); !apiclient.IsNotFound(err) {
		return controller.Result{}, err // its Project is there (nil), or no answer
	}
	if r.fixed {
		if _, err := apiclient.NewTyped[project](r.client).Namespace(req.Namespace).Get(ctx, owner); !apiclient.IsNotFound(err) {
			return controller.Result{}, err // there after all (nil), or no answer: retry
		}
	}
	err = apiclient.NewTyped[configMap](r.client).Namespace(req.Namespace).Delete(ctx, req.Name, apiclient.DeleteOptions{})
	return controller.Result{}, apiclient.IgnoreNotFound(err)
}

func collectorSpec(fixed bool) perturb.Spec {
	return perturb.Spec{
		Setup: func(m *controller.Manager) error {
			r := &collector{client: m.Client(), settings: controller.Lister[configMap](m), projects: controller.Lister[project](m), fixed: fixed}
			_, err := controller.New(m, "collector", controller.Options{}).
				For(configMaps).
				// A Project's change brings its settings; the controller also
				// waits for the Projects' cache to sync before it reconciles
				// (it waits for no Lister it does not watch).
				Watches(projects, func(p *apiclient.Object) []controller.Request {
					return []controller.Request{{Namespace: p.Metadata.Namespace, Name: p.Metadata.Name + "-settings"}}
				}).Complete(r)
			return err
		},
		Manager:         controller.ManagerOptions{Namespace: "dev"},
		FirstListAtZero: true,
		Workload: []perturb.Step{
			perturb.Create(projects, `{"apiVersion":"example.com/v1","kind":"Project","metadata":{"name":"alpha","namespace":"dev"}}`),
			perturb.Create(configMaps, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"alpha-settings","namespace":"dev","labels":{"example.com/project":"alpha"}}}`),
		},
		Invariants: []perturb.Invariant{{
			Name: "a Project's settings outlive nothing but it",
			Holds: func(s *perturb.State) error {
				for _, p := range s.List(projects) {
					if s.Before().Get(configMaps, p.Metadata.Namespace+"/"+p.Metadata.Name+"-settings") != nil &&
						s.Get(configMaps, p.Metadata.Namespace+"/"+p.Metadata.Name+"-settings") == nil {
						return fmt.Errorf("project %s exists, its settings were deleted", p.Key())
					}
				}
				return nil
			},
		}},
	}
}

func TestCollector_deletes_the_settings_of_a_project_a_stale_cache_does_not_show(t *testing.T) {
	r := perturb.Explore(t, collectorSpec(false))
	if r.Writes != 0 {
		t.Fatalf("the reference wrote %d times; the example is of a controller that only reads:\n%s", r.Writes, r)
	}
	found(t, r, perturb.Stale, "collector")
}

func TestCollector_fixed_asks_the_API_server_before_it_deletes(t *testing.T) {
	passes(t, perturb.Explore(t, collectorSpec(true)))
}
