package controller_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/trace"
)

// The trace names every write by the resource and object the client was asked
// to write, never by a path read back: a namespace's status is
// namespaces/status of that namespace (issue 36: a path read back made it a
// resource "status" in the namespace), a pod's status pods/status, a create the
// collection in its namespace, a cluster-scoped object its name alone.
func TestManager_traces_each_write_by_what_the_client_was_asked(t *testing.T) {
	var mu sync.Mutex
	var got []string
	m := newTestManager(t, controller.ManagerOptions{Trace: func(e trace.Event) {
		if e.Stage == trace.Client && e.Outcome == "sent" {
			mu.Lock()
			got = append(got, fmt.Sprintf("%s %s %s", e.Verb, e.Resource, e.Key))
			mu.Unlock()
		}
	}})
	ctx := context.Background()
	c := m.Client()
	_, err := c.Resource(apiclient.Namespaces).Create(ctx, map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "demo"}}, apiclient.WriteOptions{})
	must(t, err)
	_, err = c.Resource(apiclient.Namespaces).Patch(ctx, "demo", apiclient.MergePatch, []byte(`{"status":{"phase":"Active"}}`), apiclient.WriteOptions{}, "status")
	must(t, err)
	pods := c.Resource(apiclient.Pods).Namespace("demo")
	_, err = pods.Create(ctx, map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "web"}}, apiclient.WriteOptions{})
	must(t, err)
	_, err = pods.Patch(ctx, "web", apiclient.MergePatch, []byte(`{"status":{"phase":"Running"}}`), apiclient.WriteOptions{}, "status")
	must(t, err)
	mu.Lock()
	defer mu.Unlock()
	want := []string{
		"POST namespaces ",
		"PATCH namespaces/status demo",
		"POST pods demo",
		"PATCH pods/status demo/web",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("traced\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
