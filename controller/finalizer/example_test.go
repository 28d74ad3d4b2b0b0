package finalizer_test

import (
	"context"
	"fmt"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/finalizer"
)

// A Reconcile step with a finalizer: the first pass adds it and applies; after
// the object is deleted, the next pass cleans up and lets it go.
func ExampleReconcile() {
	srv := apitest.NewServer(apitest.NewClock())
	defer srv.Close()
	client, _ := srv.Client(apiclient.Options{})
	buckets := client.Resource(apiclient.ConfigMaps).Namespace("demo")
	ctx := context.Background()
	buckets.Create(ctx, []byte(`{"metadata":{"name":"bucket"}}`), apiclient.WriteOptions{})

	step := func() {
		o, err := buckets.Get(ctx, "bucket")
		if err != nil {
			fmt.Println("gone:", apiclient.IsNotFound(err))
			return
		}
		finalizer.Reconcile(ctx, buckets, &o.Metadata, "example.com/cleanup",
			func(context.Context) (controller.Result, error) {
				fmt.Println("apply; finalizers:", o.Metadata.Finalizers)
				return controller.Result{}, nil
			},
			func(context.Context) error { fmt.Println("cleanup"); return nil })
	}
	step()
	buckets.Delete(ctx, "bucket", apiclient.DeleteOptions{})
	step()
	step()
	// Output:
	// apply; finalizers: [example.com/cleanup]
	// cleanup
	// gone: true
}
