package informer_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/controller/informer"
)

// Cached objects with equal labels share one map (a ReplicaSet's pods all carry
// the same set); a Copy has a map of its own, so changing it changes nothing
// cached.
func TestInformer_objects_with_equal_labels_share_one_map(t *testing.T) {
	srv := apitest.NewServer(nil)
	defer srv.Close()
	c, err := srv.Client(apiclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pods := c.Resource(apiclient.Pods).Namespace("demo")
	for _, p := range []string{
		`{"metadata":{"name":"a","labels":{"app":"web","tier":"front"}}}`,
		`{"metadata":{"name":"b","labels":{"tier":"front","app":"web"}}}`,
		`{"metadata":{"name":"c","labels":{"app":"web","tier":"back"}}}`,
	} {
		if _, err := pods.Create(ctx, []byte(p), apiclient.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	inf := informer.New(informer.Options{Client: c, Resource: apiclient.Pods, Namespace: "demo", Logger: quietLog})
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	if !inf.WaitForCacheSync(ctx) {
		t.Fatal("never synced")
	}
	a, _ := inf.Get("demo", "a")
	b, _ := inf.Get("demo", "b")
	cc, _ := inf.Get("demo", "c")
	same := func(x, y map[string]string) bool { return reflect.ValueOf(x).Pointer() == reflect.ValueOf(y).Pointer() }
	if !same(a.Metadata.Labels, b.Metadata.Labels) {
		t.Error("a and b have equal labels in two maps")
	}
	if same(a.Metadata.Labels, cc.Metadata.Labels) {
		t.Error("a and c share a map but their labels differ")
	}
	mine := a.Copy()
	mine.Metadata.Labels["tier"] = "changed"
	if b.Metadata.Labels["tier"] != "front" {
		t.Fatal("changing a Copy's labels changed a cached object")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
