package apiclient_test

import (
	"context"
	"fmt"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/clock"
)

// walkDeployment is the typed view of a Deployment that the walk-through declares
// for itself: only the fields it reads or changes, plus metadata. Typed[T] sends
// json.Marshal(*T) on Update, so a field left out here would be cleared on the
// server — which is why the selector and the template's labels are declared too.
type walkDeployment struct {
	apiclient.TypeMeta
	apiclient.ObjectMeta `json:"metadata"`
	Spec                 struct {
		Replicas *int32         `json:"replicas,omitempty"`
		Selector map[string]any `json:"selector"`
		Template struct {
			Metadata apiclient.ObjectMeta `json:"metadata"`
			Spec     struct {
				Containers []struct {
					Name  string `json:"name"`
					Image string `json:"image"`
				} `json:"containers"`
			} `json:"spec"`
		} `json:"template"`
	} `json:"spec"`
}

// Resource links the type to the resource it stands for (apiclient.TypedObject).
func (*walkDeployment) Resource() apiclient.Resource { return apiclient.Deployments }

// The classic client-go Deployment walk-through (create, update, list, delete),
// step by step, against the in-memory API server. integration_test.go
// (TestIntegration_deployment_walk) runs the same walk against a real
// kube-apiserver; there a Foreground delete leaves the object marked until the
// garbage collector is done, which this small server does not model.
func Example_deploymentWalkthrough() {
	ctx := context.Background()
	srv := apitest.NewServer(clock.NewFake())
	defer srv.Close()
	client, err := srv.Client(apiclient.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	// One ResourceClient for deployments in one namespace: every verb below goes
	// to /apis/apps/v1/namespaces/default/deployments[/NAME].
	rc := client.Resource(apiclient.Deployments).Namespace("default")
	// The same resource, spoken in our own struct: what a generated clientset
	// gives in client-go, without the generated code.
	deployments := apiclient.NewTyped[walkDeployment](client).Namespace("default")

	// Create. The body is plain JSON, as kubectl would send it; the server
	// answers with the stored object, which carries its first resourceVersion.
	fmt.Println("Creating deployment...")
	created, err := rc.Create(ctx, []byte(`{"apiVersion":"apps/v1","kind":"Deployment",
		"metadata":{"name":"demo-deployment"},
		"spec":{"replicas":2,"selector":{"matchLabels":{"app":"demo"}},
		 "template":{"metadata":{"labels":{"app":"demo"}},
		  "spec":{"containers":[{"name":"web","image":"nginx:1.12"}]}}}}`), apiclient.WriteOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("Created deployment %q.\n", created.Metadata.Name)

	// Someone else writes the object between our read and our write: a
	// controller, kubectl scale, another replica of us. Their write moves the
	// resourceVersion on, so the Update below, sent with the version we read
	// first, is refused with 409 Conflict once.
	conflicts := 0
	fmt.Println("Updating deployment...")
	err = apiclient.RetryOnConflict(ctx, func() error {
		// Read afresh on every attempt: retrying the write of a stale copy
		// would be refused forever, since its resourceVersion never changes.
		d, err := deployments.Get(ctx, "demo-deployment")
		if err != nil {
			return err
		}
		if conflicts == 0 {
			if _, err := rc.Patch(ctx, "demo-deployment", apiclient.MergePatch,
				[]byte(`{"metadata":{"annotations":{"touched-by":"someone-else"}}}`), apiclient.WriteOptions{}); err != nil {
				return err
			}
		}
		one := int32(1)
		d.Spec.Replicas = &one
		d.Spec.Template.Spec.Containers[0].Image = "nginx:1.13"
		// Update is a PUT carrying d's resourceVersion: the server applies it
		// only if nobody wrote in between (optimistic concurrency).
		_, err = deployments.Update(ctx, d, apiclient.WriteOptions{})
		if apiclient.IsConflict(err) {
			conflicts++
			fmt.Println("  conflict: the object changed since we read it; reading it again")
		}
		return err
	})
	if err != nil {
		fmt.Println("Update failed:", err)
		return
	}
	fmt.Println("Updated deployment...")

	// List, and read fields of each item without declaring a struct for them.
	fmt.Println("Listing deployments in namespace \"default\":")
	list, err := rc.List(ctx, apiclient.ListOptions{}) // no limit: every object, in one response
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range list.Items {
		replicas, _ := d.Field("spec", "replicas")
		image, _ := d.FieldString("spec", "template", "spec", "containers", "0", "image")
		fmt.Printf(" * %s (%v replicas, %s)\n", d.Metadata.Name, replicas, image)
	}

	// Delete with Foreground propagation: on a real cluster the Deployment stays,
	// marked with the foregroundDeletion finalizer, until the garbage collector has
	// removed its ReplicaSets and their Pods; then it goes too.
	fmt.Println("Deleting deployment...")
	if err := rc.Delete(ctx, "demo-deployment", apiclient.DeleteOptions{Propagation: apiclient.Foreground}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("Deleted deployment.")
	_, err = rc.Get(ctx, "demo-deployment")
	fmt.Println("Get after delete is NotFound:", apiclient.IsNotFound(err))
	// Output:
	// Creating deployment...
	// Created deployment "demo-deployment".
	// Updating deployment...
	//   conflict: the object changed since we read it; reading it again
	// Updated deployment...
	// Listing deployments in namespace "default":
	//  * demo-deployment (1 replicas, nginx:1.13)
	// Deleting deployment...
	// Deleted deployment.
	// Get after delete is NotFound: true
}
