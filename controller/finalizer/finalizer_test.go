package finalizer_test

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/finalizer"
)

const name = "kubewire.io/cleanup"

func newServer(t *testing.T) (*apiclient.Client, apiclient.ResourceClient) {
	t.Helper()
	srv := apitest.NewServer(apitest.NewClock())
	t.Cleanup(srv.Close)
	c, err := srv.Client(apiclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c, c.Resource(apiclient.ConfigMaps)
}

// Another writer adds its own finalizer between our read and our write: the
// patch's test fails, Add reads again and keeps theirs. A second Add sends
// nothing.
func TestAdd_never_overwrites_another_writers_finalizer(t *testing.T) {
	c, rc := newServer(t)
	ctx := context.Background()
	o, err := rc.Namespace("demo").Create(ctx, []byte(`{"metadata":{"name":"cfg","finalizers":["a.io/first"]}}`), apiclient.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stale := o.Metadata // what our cache says
	if _, err := rc.Namespace("demo").Patch(ctx, "cfg", apiclient.MergePatch, []byte(`{"metadata":{"finalizers":["a.io/first","b.io/theirs"]}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	var patches atomic.Int32
	c.OnRequest = func(r apiclient.RequestInfo) {
		if r.Verb == "PATCH" {
			patches.Add(1)
		}
	}
	if err := finalizer.Add(ctx, rc, &stale, name); err != nil {
		t.Fatal(err)
	}
	want := []string{"a.io/first", "b.io/theirs", name}
	if !slices.Equal(stale.Finalizers, want) {
		t.Fatalf("finalizers %q, want %q", stale.Finalizers, want)
	}
	if err := finalizer.Add(ctx, rc, &stale, name); err != nil {
		t.Fatal(err)
	}
	if n := patches.Load(); n != 2 {
		t.Fatalf("%d PATCHes, want 2 (one refused by its test, one that went through; none for the second Add)", n)
	}
}

// A finalizer added to an object that had none tests the resourceVersion.
func TestAdd_to_an_object_without_finalizers(t *testing.T) {
	_, rc := newServer(t)
	o, err := rc.Namespace("demo").Create(context.Background(), []byte(`{"metadata":{"name":"cfg"}}`), apiclient.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := finalizer.Add(context.Background(), rc, &o.Metadata, name); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(o.Metadata.Finalizers, []string{name}) {
		t.Fatalf("finalizers %q", o.Metadata.Finalizers)
	}
}

// Reconcile: alive → the finalizer is added and apply runs; deleted → cleanup
// runs, the finalizer goes, and so does the object; a failed cleanup keeps both.
func TestReconcile_cleans_up_then_lets_the_object_go(t *testing.T) {
	_, rc := newServer(t)
	ctx := context.Background()
	cms := rc.Namespace("demo")
	o, err := cms.Create(ctx, []byte(`{"metadata":{"name":"cfg"}}`), apiclient.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var applied, cleaned int
	apply := func(context.Context) (controller.Result, error) { applied++; return controller.Result{}, nil }
	cleanupErr := errors.New("the bucket is still there")
	cleanup := func(context.Context) error { cleaned++; return cleanupErr }
	reconcile := func() error {
		cur, err := cms.Get(ctx, "cfg")
		if err != nil {
			return err
		}
		_, err = finalizer.Reconcile(ctx, rc, &cur.Metadata, name, apply, cleanup)
		return err
	}
	if err := reconcile(); err != nil || applied != 1 || cleaned != 0 {
		t.Fatalf("alive: %v, applied %d, cleaned %d", err, applied, cleaned)
	}
	if err := cms.Delete(ctx, o.Metadata.Name, apiclient.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := reconcile(); !errors.Is(err, cleanupErr) || cleaned != 1 || applied != 1 {
		t.Fatalf("deleted, cleanup failing: %v, applied %d, cleaned %d", err, applied, cleaned)
	}
	if _, err := cms.Get(ctx, "cfg"); err != nil {
		t.Fatalf("after a failed cleanup the object must stay: %v", err)
	}
	cleanupErr = nil
	if err := reconcile(); err != nil || cleaned != 2 {
		t.Fatalf("deleted, cleanup passing: %v, cleaned %d", err, cleaned)
	}
	if _, err := cms.Get(ctx, "cfg"); !apiclient.IsNotFound(err) {
		t.Fatalf("after cleanup and Remove: %v, want NotFound", err)
	}
}
