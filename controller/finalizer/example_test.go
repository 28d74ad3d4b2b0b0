package finalizer_test

import (
	"context"
	"fmt"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/finalizer"
)

// bucket is a ConfigMap standing for something outside the cluster that must
// be cleaned up before the object goes.
type bucket struct {
	apiclient.ObjectMeta `json:"metadata"`
}

func (*bucket) Resource() apiclient.Resource { return apiclient.ConfigMaps }

// A Reconcile step with a finalizer: the first pass adds it and applies; after
// the object is deleted, the next pass cleans up and lets it go.
func ExampleReconcile() {
	srv := apitest.NewServer(clock.NewFake())
	srv.CreateNamespaces("demo")
	defer srv.Close()
	client, _ := srv.Client(apiclient.Options{})
	buckets := apiclient.NewTyped[bucket](client).Namespace("demo")
	ctx := context.Background()
	buckets.Create(ctx, &bucket{ObjectMeta: apiclient.ObjectMeta{Name: "bucket"}}, apiclient.WriteOptions{})

	step := func() {
		b, err := buckets.Get(ctx, "bucket") // a controller reads its cache
		if err != nil {
			fmt.Println("gone:", apiclient.IsNotFound(err))
			return
		}
		finalizer.Reconcile(ctx, client, b, "example.com/cleanup",
			func(context.Context) (controller.Result, error) {
				fmt.Println("apply")
				return controller.Result{}, nil
			},
			func(context.Context) error { fmt.Println("cleanup"); return nil })
	}
	step()
	b, _ := buckets.Get(ctx, "bucket")
	fmt.Println("finalizers:", b.Finalizers)
	buckets.Delete(ctx, "bucket", apiclient.DeleteOptions{})
	step()
	step()
	// Output:
	// apply
	// finalizers: [example.com/cleanup]
	// cleanup
	// gone: true
}
