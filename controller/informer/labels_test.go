package informer_test

import (
	"reflect"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/informer"
)

// Cached objects with equal labels share one map (a ReplicaSet's pods all carry
// the same set); what Get hands out has a map of its own, so changing it
// changes nothing cached.
func TestInformer_objects_with_equal_labels_share_one_map(t *testing.T) {
	inf := runOnServer(t, informer.Options{Resource: apiclient.Pods, Namespace: "demo"},
		`{"metadata":{"name":"a","namespace":"demo","labels":{"app":"web","tier":"front"}}}`,
		`{"metadata":{"name":"b","namespace":"demo","labels":{"tier":"front","app":"web"}}}`,
		`{"metadata":{"name":"c","namespace":"demo","labels":{"app":"web","tier":"back"}}}`)
	a, _ := inf.Cached("demo", "a")
	b, _ := inf.Cached("demo", "b")
	c, _ := inf.Cached("demo", "c")
	same := func(x, y map[string]string) bool { return reflect.ValueOf(x).Pointer() == reflect.ValueOf(y).Pointer() }
	if !same(a.Metadata.Labels, b.Metadata.Labels) {
		t.Error("a and b have equal labels in two maps")
	}
	if same(a.Metadata.Labels, c.Metadata.Labels) {
		t.Error("a and c share a map but their labels differ")
	}
	mine, _ := inf.Get("demo", "a")
	if same(mine.Metadata.Labels, a.Metadata.Labels) {
		t.Fatal("Get handed out the cache's own labels map")
	}
	mine.Metadata.Labels["tier"] = "changed"
	if b.Metadata.Labels["tier"] != "front" {
		t.Fatal("changing the labels Get handed out changed a cached object")
	}
}
