package apitest_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
)

// The three lies a user's operator test met (issue 30), each pinned here; the
// differential harness (package difftest) checks the same against a real
// kube-apiserver.

// A write that changes nothing — a merge patch, a strategic merge patch, a
// server-side apply of the same configuration — keeps the resourceVersion and
// sends no watch event, as on kube-apiserver. An apply-based controller that
// reconciles on every event would otherwise loop forever in tests.
func TestLive_a_write_that_changes_nothing_keeps_the_version_and_sends_no_event(t *testing.T) {
	_, c, _ := newServer(t)
	ctx := context.Background()
	rc := c.Resource(apiclient.ConfigMaps).Namespace("demo")
	cfg := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cfg","labels":{"app":"web"}},"data":{"a":"1"}}`)
	first, err := rc.Patch(ctx, "cfg", apiclient.ApplyPatch, cfg, apiclient.WriteOptions{FieldManager: "op"})
	if err != nil {
		t.Fatal(err)
	}
	w, err := rc.Watch(ctx, apiclient.WatchOptions{ListOptions: apiclient.ListOptions{ResourceVersion: first.Metadata.ResourceVersion}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	writes := []struct {
		what string
		pt   apiclient.PatchType
		body string
	}{
		{"the same apply", apiclient.ApplyPatch, string(cfg)},
		{"a merge patch of the same value", apiclient.MergePatch, `{"data":{"a":"1"}}`},
		{"a strategic merge patch of the same label", apiclient.StrategicMergePatch, `{"metadata":{"labels":{"app":"web"}}}`},
		{"a merge patch deleting what is not there", apiclient.MergePatch, `{"data":{"gone":null}}`},
	}
	for _, wr := range writes {
		o, err := rc.Patch(ctx, "cfg", wr.pt, []byte(wr.body), apiclient.WriteOptions{FieldManager: "op"})
		if err != nil {
			t.Fatalf("%s: %v", wr.what, err)
		}
		if got, want := o.Metadata.ResourceVersion, first.Metadata.ResourceVersion; got != want {
			t.Errorf("%s: resourceVersion %s, want %s (nothing changed)", wr.what, got, want)
		}
	}
	// A write that does change something comes next, and must be the first
	// event the watch delivers.
	changed, err := rc.Patch(ctx, "cfg", apiclient.MergePatch, []byte(`{"data":{"a":"2"}}`), apiclient.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := w.Next()
	if err != nil {
		t.Fatal(err)
	}
	if ev.Object.Metadata.ResourceVersion != changed.Metadata.ResourceVersion {
		t.Errorf("first event after the no-op writes: %s rv=%s, want MODIFIED rv=%s (no-op writes send no event)", ev.Type, ev.Object.Metadata.ResourceVersion, changed.Metadata.ResourceVersion)
	}
}

// Concurrent merge patches of one object are each applied to the latest
// version: none is lost. (Each used to read the object under the lock, merge
// without it, and write without a version check, so a patch could overwrite
// one that landed in between.)
func TestLive_concurrent_patches_of_one_object_are_never_lost(t *testing.T) {
	_, c, _ := newServer(t)
	ctx := context.Background()
	rc := c.Resource(apiclient.ConfigMaps).Namespace("demo")
	if _, err := rc.Create(ctx, []byte(`{"metadata":{"name":"cfg"}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	const writers, each = 8, 50
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				patch := fmt.Sprintf(`{"data":{"w%d-%d":"x"}}`, w, i)
				if _, err := rc.Patch(ctx, "cfg", apiclient.MergePatch, []byte(patch), apiclient.WriteOptions{}); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	o, err := rc.Get(ctx, "cfg")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Data map[string]string `json:"data"`
	}
	if err := o.Decode(&got); err != nil {
		t.Fatal(err)
	}
	if len(got.Data) != writers*each {
		t.Errorf("%d of %d acknowledged patches are in the object; the others were lost", len(got.Data), writers*each)
	}
}

// A DELETE that only marks an object (it has finalizers) moves
// metadata.generation, as kube-apiserver does for every kind that has one: the
// deletion is a change of intent that controllers filtering on
// GenerationChanged must see. Kinds without a generation (ConfigMap) get none.
func TestLive_a_delete_held_by_a_finalizer_moves_the_generation(t *testing.T) {
	_, c, _ := newServer(t)
	ctx := context.Background()
	deploys := c.Resource(apiclient.Deployments).Namespace("demo")
	if _, err := deploys.Create(ctx, []byte(`{"metadata":{"name":"web","finalizers":["example.com/f"]},"spec":{"replicas":1}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := deploys.Delete(ctx, "web", apiclient.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	o, err := deploys.Get(ctx, "web")
	if err != nil {
		t.Fatal(err)
	}
	if o.Metadata.DeletionTimestamp == nil || o.Metadata.Generation != 2 {
		t.Errorf("after the delete: deletionTimestamp %v, generation %d; want set, and 2", o.Metadata.DeletionTimestamp, o.Metadata.Generation)
	}

	cms := c.Resource(apiclient.ConfigMaps).Namespace("demo")
	cm, err := cms.Create(ctx, []byte(`{"metadata":{"name":"cfg"}}`), apiclient.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cm.Metadata.Generation != 0 {
		t.Errorf("a ConfigMap has generation %d; kube-apiserver gives it none", cm.Metadata.Generation)
	}
}
