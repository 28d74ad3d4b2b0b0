package status_test

import (
	"context"
	"fmt"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/controller/status"
)

// A condition's lastTransitionTime says since when its status holds: a new
// reason alone does not move it.
func ExampleSetCondition() {
	var conds []status.Condition
	at := time.Date(2026, 11, 24, 3, 0, 0, 0, time.UTC)
	status.SetCondition(&conds, status.Condition{Type: "Ready", Status: "False", Reason: "Creating"}, at)
	changed := status.SetCondition(&conds, status.Condition{Type: "Ready", Status: "False", Reason: "Scaling"}, at.Add(time.Minute))
	fmt.Println(changed, conds[0].Reason, conds[0].LastTransitionTime.Format(time.TimeOnly))
	status.SetCondition(&conds, status.Condition{Type: "Ready", Status: "True", Reason: "Available"}, at.Add(2*time.Minute))
	fmt.Println(conds[0].Status, conds[0].LastTransitionTime.Format(time.TimeOnly))
	// Output:
	// true Scaling 03:00:00
	// True 03:02:00
}

// A Reconciler computes the status and hands it to Update with the one the
// object has: the first call writes, an unchanged status writes nothing.
func ExampleUpdate() {
	srv := apitest.NewServer(apitest.NewClock())
	defer srv.Close()
	client, _ := srv.Client(apiclient.Options{})
	obj, _ := srv.Add(apiclient.Deployments, `{"metadata":{"name":"web","namespace":"demo"},"spec":{"replicas":3}}`)

	type deploymentStatus struct {
		AvailableReplicas  int32 `json:"availableReplicas"`
		ObservedGeneration int64 `json:"observedGeneration"`
	}
	desired := deploymentStatus{AvailableReplicas: 3}
	written, _ := status.Update(context.Background(), client.Resource(apiclient.Deployments), &obj.Metadata, nil, desired)
	fmt.Println("written:", written)
	now := deploymentStatus{AvailableReplicas: 3, ObservedGeneration: 1} // what the cache shows next
	written, _ = status.Update(context.Background(), client.Resource(apiclient.Deployments), &obj.Metadata, now, desired)
	fmt.Println("written:", written)
	// Output:
	// written: true
	// written: false
}
