package perturb_test

import (
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/perturb"
)

// Restart is a step of the workload: the process stops and a fresh one takes
// over, as in a rollout of the controller. podrestart, restarted while the
// pod is Pending, lists it Pending and restarts the Deployment when it turns
// Running: the fresh process, process 2, writes.
func TestRestart_is_a_step_a_fresh_process_takes_over(t *testing.T) {
	spec := podrestartSpec()
	spec.Workload = append(spec.Workload[:2:2], perturb.Restart(), spec.Workload[2])
	spec.Kinds = []perturb.Kind{} // the reference alone
	by, running := -1, -1
	spec.Invariants = []perturb.Invariant{{
		Name: "(notes who restarts the Deployment)",
		Holds: func(s *perturb.State) error {
			if d, was := s.Get(apiclient.Deployments, "demo/tools"), s.Before().Get(apiclient.Deployments, "demo/tools"); d != nil && was != nil {
				by, running = s.By, s.Process
			}
			return nil
		},
	}}
	r := perturb.Explore(t, spec)
	if r.Reference != "" {
		t.Fatal(r)
	}
	if by != 2 || running != 2 {
		t.Errorf("the Deployment was restarted by process %d while process %d ran; want process 2, the one the Restart step started:\n%s", by, running, r)
	}
}

// A Restart step is a Down already: no down/i is planned across it.
func TestRestart_has_no_down_across_it(t *testing.T) {
	spec := podrestartSpec()
	spec.Workload = append(spec.Workload[:2:2], perturb.Restart(), spec.Workload[2])
	spec.Kinds = []perturb.Kind{perturb.Down}
	r := perturb.Explore(t, spec)
	if got, want := r.Executions, 3; got != want {
		t.Errorf("%d executions, want %d (down/1, down/2, down/4):\n%s", got, want, r)
	}
}
