package informer_test

import (
	"context"
	"fmt"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/controller/informer"
)

// deployment is the part of a Deployment this reader needs.
type deployment struct {
	Metadata apiclient.ObjectMeta `json:"metadata"`
	Spec     struct {
		Replicas int32 `json:"replicas"`
	} `json:"spec"`
}

// A Lister reads the cache as the caller's own type, each object decoded once;
// every read hands out a value of the caller's own, so a change to it stays
// there. A name the cache does not hold is a NotFound, as a GET of the server
// would be.
func ExampleLister() {
	srv := apitest.NewServer(clock.NewFake())
	srv.CreateNamespaces("demo")
	defer srv.Close()
	srv.Add(apiclient.Deployments, `{"metadata":{"name":"web","namespace":"demo"},"spec":{"replicas":3}}`)
	client, _ := srv.Client(apiclient.Options{})

	inf := informer.New(informer.Options{Client: client, Resource: apiclient.Deployments, Namespace: "demo"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go inf.Run(ctx)
	inf.WaitForCacheSync(ctx)

	deployments := informer.NewLister[deployment](inf)
	d, _ := deployments.Get("demo", "web")
	d.Spec.Replicas = 5 // mine alone
	again, _ := deployments.Get("demo", "web")
	fmt.Println(d.Metadata.Name, d.Spec.Replicas, again.Spec.Replicas)
	_, err := deployments.Get("demo", "gone")
	fmt.Println(apiclient.IsNotFound(err))
	// Output:
	// web 5 3
	// true
}
