package finalizer_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/finalizer"
)

const name = "kubewire.io/cleanup"

// configMap is a ConfigMap as these tests read it: a TypedObject.
type configMap struct {
	apiclient.ObjectMeta `json:"metadata"`
}

func (*configMap) Resource() apiclient.Resource { return apiclient.ConfigMaps }

func newServer(t *testing.T) (*apiclient.Client, apiclient.Typed[configMap]) {
	t.Helper()
	srv := apitest.NewServer(clock.NewFake())
	srv.CreateNamespaces("demo")
	t.Cleanup(srv.Close)
	c, err := srv.Client(apiclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c, apiclient.NewTyped[configMap](c).Namespace("demo")
}

func create(t *testing.T, cms apiclient.Typed[configMap], finalizers ...string) *configMap {
	t.Helper()
	o, err := cms.Create(context.Background(), &configMap{ObjectMeta: apiclient.ObjectMeta{Name: "cfg", Finalizers: finalizers}}, apiclient.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// Another writer adds its own finalizer between our read and our write: the
// patch's test fails, Add reads again and keeps theirs. A second Add of what is
// there sends nothing. The object Add is given is not changed.
func TestAdd_never_overwrites_another_writers_finalizer(t *testing.T) {
	c, cms := newServer(t)
	ctx := context.Background()
	stale := create(t, cms, "a.io/first") // what our cache says
	before := stale.DeepCopy()
	if _, err := cms.Patch(ctx, "cfg", apiclient.MergePatch, []byte(`{"metadata":{"finalizers":["a.io/first","b.io/theirs"]}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	var patches atomic.Int32
	c = c.Derive(apiclient.Derived{Observer: apiclient.Observer{Answered: func(_ context.Context, r apiclient.RequestInfo) {
		if r.Verb == "PATCH" {
			patches.Add(1)
		}
	}}})
	if err := finalizer.Add(ctx, c, stale, name); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(stale.ObjectMeta, before) {
		t.Fatalf("Add changed the object it was given: %+v", stale.ObjectMeta)
	}
	now, err := cms.Get(ctx, "cfg")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a.io/first", "b.io/theirs", name}; !slices.Equal(now.Finalizers, want) {
		t.Fatalf("finalizers %q, want %q", now.Finalizers, want)
	}
	if err := finalizer.Add(ctx, c, now, name); err != nil {
		t.Fatal(err)
	}
	if n := patches.Load(); n != 2 {
		t.Fatalf("%d PATCHes, want 2 (one refused by its test, one that went through; none for the second Add)", n)
	}
}

// A finalizer added to an object that had none tests the resourceVersion.
func TestAdd_to_an_object_without_finalizers(t *testing.T) {
	c, cms := newServer(t)
	o := create(t, cms)
	if err := finalizer.Add(context.Background(), c, o, name); err != nil {
		t.Fatal(err)
	}
	if now, err := cms.Get(context.Background(), "cfg"); err != nil || !slices.Equal(now.Finalizers, []string{name}) {
		t.Fatalf("finalizers %v, %v", now, err)
	}
}

// Reconcile: alive → the finalizer is added and apply runs; deleted → cleanup
// runs, the finalizer goes, and so does the object; a failed cleanup keeps both.
func TestReconcile_cleans_up_then_lets_the_object_go(t *testing.T) {
	c, cms := newServer(t)
	ctx := context.Background()
	create(t, cms)
	var applied, cleaned int
	apply := func(context.Context) (controller.Result, error) { applied++; return controller.Result{}, nil }
	cleanupErr := errors.New("the bucket is still there")
	cleanup := func(context.Context) error { cleaned++; return cleanupErr }
	reconcile := func() error {
		cur, err := cms.Get(ctx, "cfg")
		if err != nil {
			return err
		}
		_, err = finalizer.Reconcile(ctx, c, cur, name, apply, cleanup)
		return err
	}
	if err := reconcile(); err != nil || applied != 1 || cleaned != 0 {
		t.Fatalf("alive: %v, applied %d, cleaned %d", err, applied, cleaned)
	}
	if err := cms.Delete(ctx, "cfg", apiclient.DeleteOptions{}); err != nil {
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

// The cache still shows the object being deleted with our finalizer, but it is
// gone from the server (our finalizer was removed, by us a moment ago or by
// hand): Reconcile runs cleanup again, as documented, and then succeeds — there
// is nothing left to retry for. It used to return the removal's 404 as an
// error, counted and retried for an object that no longer exists.
func TestReconcile_of_an_object_already_gone_succeeds(t *testing.T) {
	c, cms := newServer(t)
	ctx := context.Background()
	create(t, cms, name)
	if err := cms.Delete(ctx, "cfg", apiclient.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	cached, err := cms.Get(ctx, "cfg") // being deleted, our finalizer on it
	if err != nil || cached.DeletionTimestamp == nil {
		t.Fatalf("the object being deleted: %+v, %v", cached, err)
	}
	if _, err := cms.Patch(ctx, "cfg", apiclient.MergePatch, []byte(`{"metadata":{"finalizers":null}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cms.Get(ctx, "cfg"); !apiclient.IsNotFound(err) {
		t.Fatalf("the object is still there: %v", err)
	}
	cleaned := 0
	_, err = finalizer.Reconcile(ctx, c, cached, name,
		func(context.Context) (controller.Result, error) {
			t.Fatal("apply of a deleted object")
			return controller.Result{}, nil
		},
		func(context.Context) error { cleaned++; return nil })
	if err != nil || cleaned != 1 {
		t.Fatalf("Reconcile of an object gone: %v after %d cleanups; want success after one", err, cleaned)
	}
}
