package perturb_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/controller/perturb"
)

// A Greeting's status says hello to the name in its spec.
//
// The bug: the status is written with an update of the whole object read
// from the cache (a PUT carrying its resourceVersion), and a failure is
// logged and forgotten — "the status is only informational, the next change
// will fix it". A 409 Conflict (someone wrote first) or a 500 on the last
// write of the day, and no next change comes: the status says hello to the
// wrong name for good. The fix returns the error, and the Request is retried
// with backoff on a fresh read.

var greetings = custom("greetings", "Greeting")

type greeting struct {
	apiclient.TypeMeta
	apiclient.ObjectMeta `json:"metadata"`
	Spec                 struct {
		Name string `json:"name"`
	} `json:"spec"`
	Status struct {
		Message string `json:"message,omitempty"`
	} `json:"status"`
}

func (*greeting) Resource() apiclient.Resource { return greetings }

type greeter struct {
	client    *apiclient.Client
	greetings *informer.Lister[greeting]
	log       *slog.Logger
	fixed     bool
}

func (r *greeter) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	g, err := r.greetings.Get(req.Namespace, req.Name)
	if err != nil {
		return controller.Result{}, apiclient.IgnoreNotFound(err)
	}
	want := "hello, " + g.Spec.Name
	if g.Status.Message == want {
		return controller.Result{}, nil
	}
	g.Status.Message = want // the Lister's copy is ours to change
	if _, err := apiclient.NewTyped[greeting](r.client).Update(ctx, g, apiclient.WriteOptions{}, "status"); err != nil {
		if r.fixed {
			return controller.Result{}, err
		}
		r.log.Error("could not update the status; the next change will", "greeting", req.String(), "err", err)
	}
	return controller.Result{}, nil
}

func greeterSpec(fixed bool) perturb.Spec {
	return perturb.Spec{
		Setup: func(m *controller.Manager) error {
			r := &greeter{client: m.Client(), greetings: controller.Lister[greeting](m), log: m.Log(), fixed: fixed}
			_, err := controller.New(m, "greetings", controller.Options{}).
				For(greetings, controller.WithPredicates(controller.GenerationChanged)).Complete(r)
			return err
		},
		Manager: controller.ManagerOptions{Namespace: "hello"},
		Workload: []perturb.Step{
			perturb.Create(greetings, `{"apiVersion":"example.com/v1","kind":"Greeting","metadata":{"name":"first","namespace":"hello"},"spec":{"name":"world"}}`),
			perturb.Patch(greetings, "hello/first", `{"spec":{"name":"kubewire"}}`),
		},
	}
}

func TestGreeter_forgets_a_status_write_that_a_conflict_lost(t *testing.T) {
	found(t, perturb.Explore(t, greeterSpec(false)), perturb.Conflict, "greeter")
}

func TestGreeter_fixed_returns_the_error_and_is_retried(t *testing.T) {
	passes(t, perturb.Explore(t, greeterSpec(true)))
}

// A workload that ends by deleting the object leaves an end state with
// nothing of it to compare. The idle state before each step is compared with
// the reference's too, so the status a conflict lost is found before the
// Greeting goes (before issue 38 nothing was found here).
func TestGreeter_is_found_when_its_workload_ends_in_a_delete(t *testing.T) {
	spec := greeterSpec(false)
	spec.Workload = append(spec.Workload, perturb.Delete(greetings, "hello/first"))
	spec.Kinds = []perturb.Kind{perturb.Conflict}
	r := perturb.Explore(t, spec)
	if r.Reference != "" || len(r.Failures) == 0 {
		t.Fatalf("want the lost status found before the delete:\n%s", r)
	}
	if got, want := r.Failures[0].Problem, "idle after step 1, the state differs from the reference's"; !strings.HasPrefix(got, want) {
		t.Errorf("problem %q, want it to begin %q", got, want)
	}
}
