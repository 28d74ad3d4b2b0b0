package status_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
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

// Update writes the status subresource only when it changed, with
// observedGeneration from the object's generation; the second identical update
// sends no request.
func TestUpdate_writes_only_a_changed_status(t *testing.T) {
	srv := apitest.NewServer(apitest.NewClock())
	defer srv.Close()
	var writes atomic.Int32
	c, _ := srv.Client(apiclient.Options{})
	c.OnRequest = func(r apiclient.RequestInfo) {
		if r.Verb == "PATCH" {
			writes.Add(1)
		}
	}
	rc := c.Resource(apiclient.Deployments)
	obj, err := srv.Add(apiclient.Deployments, `{"metadata":{"name":"web","namespace":"demo"},"spec":{"replicas":2}}`)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	desired := fooStatus{AvailableReplicas: 2}
	written, err := status.Update(ctx, rc, &obj.Metadata, nil, desired)
	if err != nil || !written {
		t.Fatalf("first update: written %v, %v", written, err)
	}
	got, _ := rc.Namespace("demo").Get(ctx, "web")
	var st fooStatus
	if raw, ok := got.Field("status"); !ok || apiclient.Unmarshal(mustJSON(t, raw), &st) != nil || st != (fooStatus{2, 1}) {
		t.Fatalf("status on the server %+v, want 2 available at generation 1", st)
	}
	if got.Metadata.ResourceVersion != obj.Metadata.ResourceVersion {
		t.Fatalf("meta.ResourceVersion %s, the server's %s", obj.Metadata.ResourceVersion, got.Metadata.ResourceVersion)
	}
	// The cache now holds what was written: the same desired status is no write.
	if written, err := status.Update(ctx, rc, &obj.Metadata, st, desired); err != nil || written {
		t.Fatalf("unchanged status: written %v, %v", written, err)
	}
	if n := writes.Load(); n != 1 {
		t.Fatalf("%d PATCHes, want 1", n)
	}
}
