package perturb_test

import (
	"context"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/controller/perturb"
	"github.com/kubewire/kubewire/controller/status"
)

// A Task names the Pod that runs it, and its status says whether that Pod has
// started: "Waiting", then "Running".
//
// The bug: what wakes the controller is written as a transition — "a Pod
// that was Pending is now Running" — with WatchesWith and an UpdateFunc
// alone. Reconcile itself reads the Pod's phase, as a level-based one should,
// but it is never asked to: when a relist coalesces Pending and Running into
// one, the informer shows a Pod that is simply there and Running (an add, no
// update), and the Task waits forever. The fix enqueues the Task on every
// event of its Pod (Watches, through an index), and lets Reconcile decide.

var tasks = custom("tasks", "Task")

const byPod = "pod"

type task struct {
	apiclient.TypeMeta
	apiclient.ObjectMeta `json:"metadata"`
	Spec                 struct {
		Pod string `json:"pod"`
	} `json:"spec"`
	Status struct {
		Phase string `json:"phase,omitempty"`
	} `json:"status"`
}

func (*task) Resource() apiclient.Resource { return tasks }

type starter struct {
	client *apiclient.Client
	tasks  *informer.Lister[task]
	pods   *informer.Informer
}

func (r *starter) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	t, err := r.tasks.Get(req.Namespace, req.Name)
	if err != nil {
		return controller.Result{}, apiclient.IgnoreNotFound(err)
	}
	phase := "Waiting"
	if pod, err := r.pods.Get(t.Namespace, t.Spec.Pod); err == nil {
		if p, _ := pod.FieldString("status", "phase"); p == "Running" {
			phase = "Running"
		}
	}
	_, err = status.Update(ctx, r.client, t, map[string]any{"phase": phase})
	return controller.Result{}, err
}

func starterSpec(fixed bool) perturb.Spec {
	return perturb.Spec{
		Setup: func(m *controller.Manager) error {
			if err := m.Index(tasks, byPod, func(o *apiclient.Object) ([]string, error) {
				pod, _ := o.FieldString("spec", "pod")
				return []string{o.Metadata.Namespace + "/" + pod}, nil
			}); err != nil {
				return err
			}
			r := &starter{client: m.Client(), tasks: controller.Lister[task](m), pods: m.Informer(pods)}
			b := controller.New(m, "tasks", controller.Options{}).For(tasks)
			if fixed {
				b = b.Watches(pods, controller.ToIndexed(m.Informer(tasks), byPod))
			} else {
				tasksOf := controller.ToIndexed(m.Informer(tasks), byPod)
				b = b.WatchesWith(pods, func(enqueue func(controller.Request)) informer.Handler {
					return informer.HandlerFuncs{UpdateFunc: func(old, pod *apiclient.Object) {
						was, _ := old.FieldString("status", "phase")
						now, _ := pod.FieldString("status", "phase")
						if was == "Pending" && now == "Running" { // the only moment that matters, or so it seems
							for _, req := range tasksOf(pod) {
								enqueue(req)
							}
						}
					}}
				})
			}
			_, err := b.Complete(r)
			return err
		},
		Manager: controller.ManagerOptions{Namespace: "ci"},
		Workload: []perturb.Step{
			perturb.Create(tasks, `{"apiVersion":"example.com/v1","kind":"Task","metadata":{"name":"build","namespace":"ci"},"spec":{"pod":"build-pod"}}`),
			perturb.Create(pods, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"build-pod","namespace":"ci"},"status":{"phase":"Pending"}}`),
			perturb.PatchStatus(pods, "ci/build-pod", `{"status":{"phase":"Running"}}`),
		},
	}
}

func TestTask_never_starts_when_a_relist_coalesces_pending_and_running(t *testing.T) {
	found(t, perturb.Explore(t, starterSpec(false)), perturb.Coalesce, "task")
}

func TestTask_fixed_reconciles_on_every_event_of_its_pod(t *testing.T) {
	passes(t, perturb.Explore(t, starterSpec(true)))
}
