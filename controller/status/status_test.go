package status_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/controller/status"
)

var t0 = time.Date(2026, 11, 24, 3, 0, 0, 0, time.UTC)

func TestSetCondition_moves_the_transition_time_only_when_status_changes(t *testing.T) {
	var conds []status.Condition
	steps := []struct {
		c       status.Condition
		at      time.Time
		changed bool
		since   time.Time
	}{
		{status.Condition{Type: "Ready", Status: "False", Reason: "Creating"}, t0, true, t0},
		{status.Condition{Type: "Ready", Status: "False", Reason: "Creating"}, t0.Add(time.Minute), false, t0},
		{status.Condition{Type: "Ready", Status: "False", Reason: "Waiting", Message: "1 of 3"}, t0.Add(2 * time.Minute), true, t0},
		{status.Condition{Type: "Ready", Status: "True", Reason: "Available"}, t0.Add(3 * time.Minute), true, t0.Add(3 * time.Minute)},
		{status.Condition{Type: "Ready", Status: "True", Reason: "Available", ObservedGeneration: 2}, t0.Add(4 * time.Minute), true, t0.Add(3 * time.Minute)},
	}
	for i, s := range steps {
		if got := status.SetCondition(&conds, s.c, s.at); got != s.changed {
			t.Errorf("step %d: changed %v, want %v", i, got, s.changed)
		}
		if len(conds) != 1 || !conds[0].LastTransitionTime.Equal(s.since) {
			t.Fatalf("step %d: %+v, want one condition true since %v", i, conds, s.since)
		}
	}
	if !status.IsTrue(conds, "Ready") || status.IsTrue(conds, "Degraded") {
		t.Fatal("IsTrue")
	}
}

type fooStatus struct {
	AvailableReplicas  int32 `json:"availableReplicas"`
	ObservedGeneration int64 `json:"observedGeneration"`
}

// fooDeployment is a Deployment as these tests read it.
type fooDeployment struct {
	apiclient.ObjectMeta `json:"metadata"`
	Status               fooStatus `json:"status"`
}

func (*fooDeployment) Resource() apiclient.Resource { return apiclient.Deployments }

func newDeployment(t *testing.T) (*apiclient.Client, apiclient.Typed[fooDeployment], *fooDeployment) {
	t.Helper()
	srv := apitest.NewServer(clock.NewFake())
	srv.CreateNamespaces("demo")
	t.Cleanup(srv.Close)
	c, _ := srv.Client(apiclient.Options{})
	deployments := apiclient.NewTyped[fooDeployment](c).Namespace("demo")
	d, err := deployments.Create(context.Background(), &fooDeployment{ObjectMeta: apiclient.ObjectMeta{Name: "web"}}, apiclient.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return c, deployments, d
}

// Update writes the status subresource only when it changed, with
// observedGeneration from the object's generation; the second identical update,
// given the object as the cache has it then, sends no request. Neither the
// object nor the status it is given is changed.
func TestUpdate_writes_only_a_changed_status(t *testing.T) {
	c, deployments, obj := newDeployment(t)
	var writes atomic.Int32
	c = c.Derive(apiclient.Derived{Observer: apiclient.Observer{Answered: func(_ context.Context, r apiclient.RequestInfo) {
		if r.Verb == "PATCH" {
			writes.Add(1)
		}
	}}})
	ctx := context.Background()
	before := *obj
	desired := fooStatus{AvailableReplicas: 2}
	written, err := status.Update(ctx, c, obj, desired)
	if err != nil || !written {
		t.Fatalf("first update: written %v, %v", written, err)
	}
	if obj.ResourceVersion != before.ResourceVersion || obj.Status != before.Status || desired.ObservedGeneration != 0 {
		t.Fatal("Update changed what it was given")
	}
	got, err := deployments.Get(ctx, "web")
	if err != nil || got.Status != (fooStatus{2, 1}) {
		t.Fatalf("status on the server %+v, %v; want 2 available at generation 1", got, err)
	}
	// The cache now holds what was written: the same desired status is no write.
	if written, err := status.Update(ctx, c, got, desired); err != nil || written {
		t.Fatalf("unchanged status: written %v, %v", written, err)
	}
	if n := writes.Load(); n != 1 {
		t.Fatalf("%d PATCHes, want 1", n)
	}
}

// A status whose observedGeneration is tagged omitempty, as most are: at 0 the
// key is left out of the JSON, and Update used to take that for a status
// without the field, and write it without the generation.
func TestUpdate_fills_observedGeneration_tagged_omitempty(t *testing.T) {
	c, deployments, obj := newDeployment(t)
	type omitting struct {
		AvailableReplicas  int32 `json:"availableReplicas"`
		ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	}
	if _, err := status.Update(context.Background(), c, obj, omitting{AvailableReplicas: 1}); err != nil {
		t.Fatal(err)
	}
	got, err := deployments.Get(context.Background(), "web")
	if err != nil || got.Status.ObservedGeneration != 1 {
		t.Fatalf("status on the server %+v, %v; want observedGeneration 1", got.Status, err)
	}
}

// SetCondition never writes into the slice it is handed: a status copied from a
// cached object shares its conditions with it, and an edit in place changed the
// object too, which then already showed the new status (Update wrote nothing).
func TestSetCondition_leaves_the_slice_it_was_given_alone(t *testing.T) {
	cached := []status.Condition{{Type: "Ready", Status: "False", Reason: "Progressing", LastTransitionTime: apiclient.Time{Time: t0}}}
	copied := cached // st := obj.Status: the struct is copied, the slice's array is shared
	if !status.SetCondition(&copied, status.Condition{Type: "Ready", Status: "True", Reason: "Available"}, t0.Add(time.Minute)) {
		t.Fatal("no change reported")
	}
	if cached[0].Status != "False" || cached[0].Reason != "Progressing" {
		t.Fatalf("the cached conditions changed: %+v", cached[0])
	}
	if copied[0].Status != "True" {
		t.Fatalf("the copy: %+v", copied[0])
	}
	room := make([]status.Condition, 1, 4) // room to append in place
	room[0] = cached[0]
	grown := room
	status.SetCondition(&grown, status.Condition{Type: "Degraded", Status: "False"}, t0)
	if len(grown) != 2 || room[:2][1].Type == "Degraded" {
		t.Fatal("a new condition was appended into the array the caller holds")
	}
}
