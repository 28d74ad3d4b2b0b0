package apitest_test

import (
	"context"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
)

// The server moves metadata.generation as the real one does: 1 at creation, one
// more for each write that changes anything but metadata and status. Controllers
// compare it with status.observedGeneration, and GenerationChanged filters on it.
func TestLive_generation_moves_only_with_the_spec(t *testing.T) {
	_, c, _ := newServer(t)
	ctx := context.Background()
	rc := c.Resource(apiclient.Deployments).Namespace("demo")
	created, err := rc.Create(ctx, []byte(`{"metadata":{"name":"web"},"spec":{"replicas":1}}`), apiclient.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		what  string
		patch string
		sub   []string
		want  int64
	}{
		{"label", `{"metadata":{"labels":{"a":"b"}}}`, nil, 1},
		{"status", `{"status":{"availableReplicas":1}}`, []string{"status"}, 1},
		{"spec", `{"spec":{"replicas":2}}`, nil, 2},
		{"generation sent by the client", `{"metadata":{"generation":40}}`, nil, 2},
	}
	if got := created.Metadata.Generation; got != 1 {
		t.Fatalf("generation after create = %d, want 1", got)
	}
	for _, s := range steps {
		o, err := rc.Patch(ctx, "web", apiclient.MergePatch, []byte(s.patch), apiclient.WriteOptions{}, s.sub...)
		if err != nil {
			t.Fatal(err)
		}
		if got := o.Metadata.Generation; got != s.want {
			t.Errorf("after a %s write: generation %d, want %d", s.what, got, s.want)
		}
	}
}

// A delete of an object with finalizers only marks it (deletionTimestamp, a
// MODIFIED event); the write that removes the last finalizer deletes it.
func TestLive_finalizers_hold_a_deleted_object(t *testing.T) {
	_, c, _ := newServer(t)
	ctx := context.Background()
	rc := c.Resource(apiclient.ConfigMaps).Namespace("demo")
	if _, err := rc.Create(ctx, []byte(`{"metadata":{"name":"held","finalizers":["example.com/cleanup","example.com/other"]}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := rc.Delete(ctx, "held", apiclient.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	o, err := rc.Get(ctx, "held")
	if err != nil {
		t.Fatalf("get after delete: %v; a finalizer should hold it", err)
	}
	if o.Metadata.DeletionTimestamp == nil {
		t.Fatal("no deletionTimestamp after delete")
	}
	if _, err := rc.Patch(ctx, "held", apiclient.MergePatch, []byte(`{"metadata":{"finalizers":["example.com/other"],"deletionTimestamp":null}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if o, err := rc.Get(ctx, "held"); err != nil || o.Metadata.DeletionTimestamp == nil {
		t.Fatalf("after one of two finalizers went: %v, %+v; want it still there, still marked", err, o)
	}
	if _, err := rc.Patch(ctx, "held", apiclient.MergePatch, []byte(`{"metadata":{"finalizers":null}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := rc.Get(ctx, "held"); !apiclient.IsNotFound(err) {
		t.Fatalf("after the last finalizer went: %v, want NotFound", err)
	}
}

// Server-side apply creates an object that does not exist, and merges into one
// that does: a manager's configuration is the whole of its intent, so what it
// applied before and leaves out now is removed, while what another manager
// applied stays.
func TestLive_apply_creates_then_merges(t *testing.T) {
	_, c, _ := newServer(t)
	ctx := context.Background()
	rc := c.Resource(apiclient.ConfigMaps).Namespace("demo")
	apply := func(manager, body string) *apiclient.Object {
		t.Helper()
		o, err := rc.Patch(ctx, "cfg", apiclient.ApplyPatch, []byte(body), apiclient.WriteOptions{FieldManager: manager})
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	apply("a", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cfg"},"data":{"a":"1"}}`)
	apply("b", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cfg"},"data":{"b":"2"}}`)
	o := apply("a", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cfg"},"data":{"c":"3"}}`)
	for k, want := range map[string]string{"a": "", "b": "2", "c": "3"} {
		if got, _ := o.FieldString("data", k); got != want {
			t.Errorf("data.%s = %q after the applies, want %q", k, got, want)
		}
	}
}
