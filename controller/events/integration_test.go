package events_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/realtest"
	"github.com/kubewire/kubewire/controller/events"
)

// On a real server: five of the same event are one events.k8s.io Event with a
// series of 5, which the server also shows as a core/v1 Event (it converts,
// series included), so kubectl describe sees it.
func TestIntegration_a_series_on_a_real_server(t *testing.T) {
	c, _ := realtest.Client(t, apiclient.Options{})
	ns := realtest.Namespace(t, c, "events")
	ctx := context.Background()
	cm, err := apiclient.NewTyped[testConfigMap](c).Namespace(ns).Create(ctx, &testConfigMap{ObjectMeta: apiclient.ObjectMeta{Name: "subject"}}, apiclient.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := events.NewRecorder(c, events.Options{Controller: "kubewire.io/integration"})
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- r.Run(rctx) }()
	for range 5 {
		r.Eventf(cm, events.Warning, "Broken", "Reconcile", "the same thing went wrong")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if s := r.Stats(); s.WriteFailed != 0 || s.Written == 0 {
		t.Fatalf("stats %+v", s)
	}
	list, err := c.Resource(eventsV1).Namespace(ns).List(ctx, apiclient.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 {
		t.Fatalf("%d events.k8s.io Events, want 1", len(list.Items))
	}
	if n, _ := list.Items[0].Field("series", "count"); fmt.Sprint(n) != "5" {
		t.Fatalf("series.count %v, want 5", n)
	}
	core, err := c.Resource(coreV1).Namespace(ns).Get(ctx, list.Items[0].Metadata.Name)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := core.Field("series", "count"); fmt.Sprint(n) != "5" { // core/v1 carries the series too
		t.Fatalf("as a core/v1 Event: series.count %v, want 5", n)
	}
	if kind, _ := core.FieldString("involvedObject", "kind"); kind != "ConfigMap" {
		t.Fatalf("as a core/v1 Event: involvedObject.kind %q", kind)
	}
}

// testConfigMap is a ConfigMap as the test reads it: a TypedObject.
type testConfigMap struct {
	apiclient.ObjectMeta `json:"metadata"`
}

func (*testConfigMap) Resource() apiclient.Resource { return apiclient.ConfigMaps }
