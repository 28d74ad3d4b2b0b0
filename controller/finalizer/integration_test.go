package finalizer_test

import (
	"context"
	"slices"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/realtest"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/finalizer"
)

// On a real server: Add from a stale read keeps the finalizer another writer
// added meanwhile (the JSON patch's test fails with 422, Add reads again); after
// a delete, Reconcile cleans up and the object goes.
func TestIntegration_finalizer_on_a_real_server(t *testing.T) {
	c, _ := realtest.Client(t, apiclient.Options{})
	ns := realtest.Namespace(t, c, "finalizer")
	ctx := context.Background()
	cms := apiclient.NewTyped[configMap](c).Namespace(ns)
	stale, err := cms.Create(ctx, &configMap{ObjectMeta: apiclient.ObjectMeta{Name: "cfg", Finalizers: []string{"a.io/first"}}}, apiclient.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cms.Patch(ctx, "cfg", apiclient.MergePatch, []byte(`{"metadata":{"finalizers":["a.io/first","b.io/theirs"]}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := finalizer.Add(ctx, c, stale, name); err != nil {
		t.Fatal(err)
	}
	now, err := cms.Get(ctx, "cfg")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a.io/first", "b.io/theirs", name}; !slices.Equal(now.Finalizers, want) {
		t.Fatalf("finalizers %q, want %q", now.Finalizers, want)
	}
	// Only ours may stay for the delete to complete.
	if _, err := cms.Patch(ctx, "cfg", apiclient.MergePatch, []byte(`{"metadata":{"finalizers":["`+name+`"]}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cms.Delete(ctx, "cfg", apiclient.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	cur, err := cms.Get(ctx, "cfg")
	if err != nil || cur.DeletionTimestamp == nil {
		t.Fatalf("after delete: %v, deletionTimestamp %v; the finalizer should hold it", err, cur)
	}
	cleaned := 0
	_, err = finalizer.Reconcile(ctx, c, cur, name,
		func(context.Context) (controller.Result, error) {
			t.Fatal("apply on a deleted object")
			return controller.Result{}, nil
		},
		func(context.Context) error { cleaned++; return nil })
	if err != nil || cleaned != 1 {
		t.Fatalf("reconcile: %v, cleaned %d", err, cleaned)
	}
	if _, err := cms.Get(ctx, "cfg"); !apiclient.IsNotFound(err) {
		t.Fatalf("after cleanup: %v, want NotFound", err)
	}
}
