package perturb_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/controller/perturb"
	"github.com/kubewire/kubewire/controller/status"
)

// A Pool is a ReplicaSet in miniature: spec.replicas Pods, each with a name
// the server makes up (generateName), and status.replicas saying how many it
// made. The controller counts the Pool's Pods in its cache, creates the
// missing ones and deletes the surplus in the order the cache lists them — by
// name — then writes the count. That is the natural code, and it is correct:
// which of two identical Pods goes is nobody's business.
//
// Counting from the cache is safe only because of the staleness guard: the
// status write brings the Pool back at once (its own watch event), and if the
// watch of Pods has not yet shown the Pod just created, a second turn that
// counted them would make one more. The guard holds that turn until the cache
// shows the create; with the guard off (controller.Options.DisableStaleGuard)
// the late/k perturbation — the watch event of write k held past the next
// Reconcile — finds the double create, within one process.

var pools = custom("pools", "Pool")

type pool struct {
	apiclient.TypeMeta
	apiclient.ObjectMeta `json:"metadata"`
	Spec                 struct {
		Replicas int `json:"replicas"`
	} `json:"spec"`
	Status struct {
		Replicas int `json:"replicas"`
	} `json:"status"`
}

func (*pool) Resource() apiclient.Resource { return pools }

type member struct {
	apiclient.TypeMeta
	apiclient.ObjectMeta `json:"metadata"`
	Spec                 map[string]any `json:"spec"`
}

func (*member) Resource() apiclient.Resource { return pods }

type pooler struct {
	client  *apiclient.Client
	pools   *informer.Lister[pool]
	members *informer.Lister[member]
}

func (r *pooler) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	p, err := r.pools.Get(req.Namespace, req.Name)
	if err != nil {
		return controller.Result{}, apiclient.IgnoreNotFound(err) // gone: the garbage collector takes its Pods
	}
	all, err := r.members.List() // sorted by key: by name
	if err != nil {
		return controller.Result{}, err
	}
	var mine []*member
	for _, m := range all {
		if controller.IsControlledBy(&m.ObjectMeta, p) {
			mine = append(mine, m)
		}
	}
	client := apiclient.NewTyped[member](r.client).Namespace(p.Namespace)
	for n := len(mine); n < p.Spec.Replicas; n++ {
		m := &member{ObjectMeta: controller.ChildOf(p, ""), Spec: map[string]any{"containers": []any{map[string]any{"name": "app", "image": "nginx"}}}}
		m.GenerateName = p.Name + "-"
		if _, err := client.Create(ctx, m, apiclient.WriteOptions{}); err != nil {
			return controller.Result{}, err
		}
	}
	for _, extra := range mine[min(p.Spec.Replicas, len(mine)):] {
		if err := client.Delete(ctx, extra.Name, apiclient.DeleteOptions{}); apiclient.IgnoreNotFound(err) != nil {
			return controller.Result{}, err
		}
	}
	if p.Status.Replicas != p.Spec.Replicas {
		_, err = status.Update(ctx, r.client, p, map[string]any{"replicas": p.Spec.Replicas})
	}
	return controller.Result{}, err
}

func poolSpec(guard bool) perturb.Spec {
	return perturb.Spec{
		Setup: func(m *controller.Manager) error {
			r := &pooler{client: m.Client(), pools: controller.Lister[pool](m), members: controller.Lister[member](m)}
			_, err := controller.New(m, "pools", controller.Options{DisableStaleGuard: !guard}).For(pools).Owns(pods).Complete(r)
			return err
		},
		Manager: controller.ManagerOptions{Namespace: "web"},
		Workload: []perturb.Step{
			perturb.Create(pools, `{"apiVersion":"example.com/v1","kind":"Pool","metadata":{"name":"front","namespace":"web"},"spec":{"replicas":3}}`),
			perturb.Patch(pools, "web/front", `{"spec":{"replicas":1}}`),
		},
		Invariants: []perturb.Invariant{{
			Name: "a Pool never has more Pods than it ever asked for (3)",
			Holds: func(s *perturb.State) error {
				if n := len(s.List(pods)); n > 3 {
					return fmt.Errorf("pool front has %d Pods", n)
				}
				return nil
			},
		}},
	}
}

func TestPool_deletes_surplus_generated_names_by_name_and_passes(t *testing.T) {
	passes(t, perturb.Explore(t, poolSpec(true)))
}

// The staleness guard's own case, within one process: without it, the turn
// that the status write brings counts no Pod in a cache that has not shown
// the creates yet, and makes them again (testdata/pool-unguarded.golden).
// The test above is the same controller with the guard on, passing.
func TestPool_without_the_staleness_guard_makes_its_Pods_twice(t *testing.T) {
	found(t, perturb.Explore(t, poolSpec(false)), perturb.Late, "pool-unguarded")
}

// fewPerProcess is "a Pool never has more Pods than it ever asked for",
// within one process: it counts the Pods the running process made
// (State.MadeBy), not every Pod.
var fewPerProcess = perturb.Invariant{
	Name: "no process makes more Pods than the Pool ever asked for (3)",
	Holds: func(s *perturb.State) error {
		n := 0
		for _, p := range s.List(pods) {
			if s.MadeBy(pods, p.Key()) == s.Process {
				n++
			}
		}
		if n > 3 {
			return fmt.Errorf("process %d made %d of pool front's Pods", s.Process, n)
		}
		return nil
	},
}

// With its first list at resourceVersion "0", a process restarted after a
// crash may list the Pods as they were before its predecessor made them, and
// make them again: a window no staleness guard can close (the fresh process
// has written nothing yet). "Never more than 3 Pods" flags it; the same rule
// within one process does not, and still finds the unguarded Pool counting
// twice within one process.
func TestPool_an_invariant_within_one_process_is_not_broken_by_a_restart(t *testing.T) {
	spec := poolSpec(true)
	spec.FirstListAtZero = true
	spec.Workload = spec.Workload[:1] // the Pool made: 3 Pods
	spec.Kinds = []perturb.Kind{perturb.Stale}
	if r := perturb.Explore(t, spec); len(r.Failures) == 0 {
		t.Fatalf("with a first list at 0, want a restarted process to make Pods again:\n%s", r)
	}
	spec.Invariants = []perturb.Invariant{fewPerProcess}
	passes(t, perturb.Explore(t, spec))

	unguarded := poolSpec(false)
	unguarded.Invariants = []perturb.Invariant{fewPerProcess}
	unguarded.Workload = unguarded.Workload[:1]
	unguarded.Kinds = []perturb.Kind{perturb.Late}
	if r := perturb.Explore(t, unguarded); len(r.Failures) == 0 || !strings.Contains(r.Failures[0].Problem, "process 1 made") {
		t.Fatalf("want the unguarded Pool's double create found within process 1:\n%s", r)
	}
}
