package status_test

import (
	"context"
	"fmt"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/clock"
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

// web is a Deployment as this Example reads it: a TypedObject.
type web struct {
	apiclient.ObjectMeta `json:"metadata"`
	Status               deploymentStatus `json:"status"`
}

func (*web) Resource() apiclient.Resource { return apiclient.Deployments }

type deploymentStatus struct {
	AvailableReplicas  int32 `json:"availableReplicas"`
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// A Reconciler computes the status and hands it to Update with the object the
// cache has: the first call writes, with observedGeneration filled in; the
// same status again, once the cache has it, writes nothing.
func ExampleUpdate() {
	srv := apitest.NewServer(clock.NewFake())
	srv.CreateNamespaces("demo")
	defer srv.Close()
	client, _ := srv.Client(apiclient.Options{})
	webs := apiclient.NewTyped[web](client).Namespace("demo")
	ctx := context.Background()
	webs.Create(ctx, &web{ObjectMeta: apiclient.ObjectMeta{Name: "web"}}, apiclient.WriteOptions{})

	cached, _ := webs.Get(ctx, "web")
	written, _ := status.Update(ctx, client, cached, deploymentStatus{AvailableReplicas: 3})
	fmt.Println("written:", written)
	cached, _ = webs.Get(ctx, "web") // what the cache shows next
	fmt.Println(cached.Status.AvailableReplicas, cached.Status.ObservedGeneration)
	written, _ = status.Update(ctx, client, cached, deploymentStatus{AvailableReplicas: 3})
	fmt.Println("written:", written)
	// Output:
	// written: true
	// 3 1
	// written: false
}
