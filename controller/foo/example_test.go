package foo_test

import (
	"context"
	"fmt"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/foo"
)

// How to test a controller: run it with a Manager on the in-memory API server,
// write what a user would, and watch for what the controller should do — no
// cluster, no sleeps. Replace foo.Setup with your own.
func Example_testingAController() {
	srv := apitest.NewServer(nil) // nil: the wall clock; clock.NewFake() for a fake one
	srv.CreateNamespaces("demo")
	defer srv.Close()
	client, _ := srv.Client(apiclient.Options{})
	// Foos are served once their CRD is, as on a cluster: install it.
	foo.InstallCRD(context.Background(), client)

	m, _ := controller.NewManager(client, controller.ManagerOptions{Namespace: "demo", Log: quiet})
	foo.Setup(m, foo.Options{})
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- m.Run(ctx) }()

	deployments := client.Resource(apiclient.Deployments).Namespace("demo")
	w, _ := deployments.Watch(ctx, apiclient.WatchOptions{})
	client.Resource(foo.Foos).Namespace("demo").Create(ctx,
		[]byte(`{"apiVersion":"samplecontroller.k8s.io/v1alpha1","kind":"Foo","metadata":{"name":"example-foo"},"spec":{"deploymentName":"web","replicas":2}}`),
		apiclient.WriteOptions{})
	ev, _ := w.Next() // the controller's create
	replicas, _ := ev.Object.Field("spec", "replicas")
	fmt.Println(ev.Type, ev.Object.Metadata.Name, replicas, ev.Object.Metadata.OwnerReferences[0].Kind)
	w.Close()
	stop()
	<-done
	// Output: ADDED web 2 Foo
}
