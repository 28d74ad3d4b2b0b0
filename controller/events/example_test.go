package events_test

import (
	"context"
	"fmt"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/controller/events"
)

// A Reconciler's events: the same Warning three times is one Event with a
// series of 3.
func ExampleRecorder() {
	srv := apitest.NewServer(clock.NewFake())
	srv.CreateNamespaces("demo")
	defer srv.Close()
	client, _ := srv.Client(apiclient.Options{})

	rec := events.NewRecorder(client, events.Options{Controller: "kubewire.io/foo", Instance: "replica-1"})
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- rec.Run(ctx) }() // a controller's Manager.Recorder runs it for you

	foo := &testFoo{ObjectMeta: apiclient.ObjectMeta{Name: "example-foo", Namespace: "demo", UID: "uid-1"}}
	for range 3 {
		rec.Eventf(foo, events.Warning, "ErrResourceExists", "Reconcile", "Resource %q already exists and is not managed by Foo", "web")
	}
	stop()
	<-done // Run writes what it was given before it returns

	list, _ := client.Resource(eventsV1).Namespace("demo").List(context.Background(), apiclient.ListOptions{})
	for _, e := range list.Items {
		reason, _ := e.FieldString("reason")
		note, _ := e.FieldString("note")
		count, _ := e.Field("series", "count")
		fmt.Println(reason, count, note)
	}
	// Output: ErrResourceExists 3 Resource "web" already exists and is not managed by Foo
}
