package perturb_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/controller/perturb"
	"github.com/kubewire/kubewire/controller/status"
)

// A Backup runs once, as a Job the controller creates for it, and says in its
// status which Job that is.
//
// The bug: the Job gets a generated name (generateName), and the status is
// how the controller knows it made one. Two writes, "create the Job" and
// "record it in status", with nothing to hold them together: a crash in
// between, and the next process finds no Job in the status and starts a
// second backup. The fix names the Job after the Backup, so that a second
// create fails with AlreadyExists and the Job is simply adopted.
//
// Within one process the Manager's staleness guard hides the bug: after the
// status write, the next Reconcile of the Backup waits until the Backups
// cache shows it, so a watch cut before the write came through (cut/1, cut/4)
// no longer makes a second Job, as it did with the guard off
// (controller.Options.DisableStaleGuard). A crash loses what the guard knew
// with the rest of the process's memory: crash/1 and crash/3, the stale
// views after a crash, a 500 on the status write (internal/2) and a 504 on
// the create (timeout/1) still run a Backup twice (testdata/backup.golden).

var backups = custom("backups", "Backup")

type backup struct {
	apiclient.TypeMeta
	apiclient.ObjectMeta `json:"metadata"`
	Status               struct {
		Job string `json:"job,omitempty"`
	} `json:"status"`
}

func (*backup) Resource() apiclient.Resource { return backups }

type backupRunner struct {
	client  *apiclient.Client
	backups *informer.Lister[backup]
	fixed   bool
}

func (r *backupRunner) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	b, err := r.backups.Get(req.Namespace, req.Name)
	if err != nil || b.Status.Job != "" {
		return controller.Result{}, apiclient.IgnoreNotFound(err) // gone, or its Job is running
	}
	j := &job{ObjectMeta: controller.ChildOf(b, b.Name+"-job"), Spec: map[string]any{"template": map[string]any{"spec": map[string]any{
		"containers": []any{map[string]any{"name": "dump", "image": "postgres:17", "command": []any{"pg_dumpall"}}}}}}}
	if !r.fixed {
		j.Name, j.GenerateName = "", b.Name+"-"
	}
	made, err := apiclient.NewTyped[job](r.client).Create(ctx, j, apiclient.WriteOptions{})
	if r.fixed && apiclient.IsAlreadyExists(err) {
		made, err = j, nil // ours, from before a crash: the name says so
	}
	if err != nil {
		return controller.Result{}, err
	}
	_, err = status.Update(ctx, r.client, b, map[string]any{"job": made.Name})
	return controller.Result{}, err
}

func backupSpec(fixed bool) perturb.Spec {
	return perturb.Spec{
		Setup: func(m *controller.Manager) error {
			r := &backupRunner{client: m.Client(), backups: controller.Lister[backup](m), fixed: fixed}
			_, err := controller.New(m, "backups", controller.Options{}).For(backups).Owns(jobs).Complete(r)
			return err
		},
		Manager: controller.ManagerOptions{Namespace: "db"},
		Workload: []perturb.Step{
			perturb.Create(backups, `{"apiVersion":"example.com/v1","kind":"Backup","metadata":{"name":"nightly","namespace":"db"}}`),
			perturb.Create(backups, `{"apiVersion":"example.com/v1","kind":"Backup","metadata":{"name":"weekly","namespace":"db"}}`),
		},
		Invariants: []perturb.Invariant{{
			Name: "one Job per Backup",
			Holds: func(s *perturb.State) error {
				per := map[string]int{}
				for _, j := range s.List(jobs) {
					for _, o := range j.Metadata.OwnerReferences {
						if per[o.Name]++; per[o.Name] > 1 {
							return fmt.Errorf("backup %s has %d Jobs: it runs twice", o.Name, per[o.Name])
						}
					}
				}
				return nil
			},
		}},
	}
}

func TestBackup_runs_twice_after_a_crash_between_its_two_writes(t *testing.T) {
	found(t, perturb.Explore(t, backupSpec(false)), perturb.Crash, "backup")
}

func TestBackup_fixed_names_its_job_so_that_a_second_create_fails(t *testing.T) {
	passes(t, perturb.Explore(t, backupSpec(true)))
}
