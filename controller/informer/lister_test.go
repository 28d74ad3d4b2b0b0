package informer_test

import (
	"context"
	"encoding/json"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/controller/informer/informertest"
)

type podView struct {
	Metadata apiclient.ObjectMeta `json:"metadata"`
	Spec     struct {
		NodeName decodeCounter `json:"nodeName"`
	} `json:"spec"`
}

// decodeCounter counts how often a podView is decoded, through its one member
// that decodes itself.
type decodeCounter string

var decodes atomic.Int64

func (c *decodeCounter) UnmarshalJSON(b []byte) error {
	decodes.Add(1)
	return json.Unmarshal(b, (*string)(c))
}

// A Lister decodes each resourceVersion of an object once, and hands every
// reader a value of its own: changing it changes neither the cache nor what the
// next reader gets.
func TestLister_decodes_once_per_resourceVersion_and_hands_out_copies(t *testing.T) {
	inf, src, start := informertest.New(t, informer.Options{})
	start()
	withNode := func(rv string) *apiclient.Object {
		o, err := apiclient.DecodeObject([]byte(`{"metadata":{"name":"a","namespace":"default","labels":{"app":"web"},"resourceVersion":"` + rv + `"},"spec":{"nodeName":"n1"}}`))
		must(t, err)
		return o
	}
	must(t, src.Sink.Replace([]*apiclient.Object{withNode("1")}, "1"))
	inf.WaitForCacheSync(t.Context())
	pods := informer.NewLister[podView](inf)
	decodes.Store(0)
	first, err := pods.Get("default", "a")
	if err != nil {
		t.Fatal(err)
	}
	first.Metadata.Labels["app"] = "changed"
	first.Spec.NodeName = "changed"
	again, _ := pods.Get("default", "a")
	if again == first || again.Metadata.Labels["app"] != "web" || again.Spec.NodeName != "n1" {
		t.Fatalf("a second Get gave %+v: want a value of its own, unchanged by the first reader's writes", again)
	}
	if list, _ := pods.List(); len(list) != 1 || list[0] == first || list[0].Spec.NodeName != "n1" {
		t.Fatalf("List %v: want a copy of the value Get decoded", list)
	}
	if cached, _ := inf.Cached("default", "a"); cached.Metadata.Labels["app"] != "web" {
		t.Fatal("a change to a Lister's value reached the cached object")
	}
	if n := decodes.Load(); n != 1 {
		t.Fatalf("decoded %d times for two Gets and a List of one resourceVersion, want 1", n)
	}
	must(t, src.Sink.Update(withNode("2")))
	// The informer applies the update on its own goroutine: wait for the
	// store to stand at it (a minute at most: a watchdog).
	wait, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if !inf.WaitForStoreVersion(wait, "2") {
		t.Fatal("the store never reached the update's resourceVersion")
	}
	after, err := pods.Get("default", "a")
	if err != nil || after.Metadata.ResourceVersion != "2" || decodes.Load() != 2 {
		t.Fatalf("after an update: %+v, %v, %d decodes; want a new value at rv 2, decoded once more", after, err, decodes.Load())
	}
}

// BenchmarkLister_Get reads a realistic pod (5.2 KB of JSON, the one the
// apiclient benchmarks decode) from the cache as a typed value.
func BenchmarkLister_Get(b *testing.B) {
	inf, src, start := informertest.New(b, informer.Options{})
	start()
	data, err := os.ReadFile("../../apiclient/testdata/pod.json")
	if err != nil {
		b.Fatal(err)
	}
	o, err := apiclient.DecodeObject(data)
	if err != nil {
		b.Fatal(err)
	}
	o.Metadata.Namespace, o.Metadata.Name = "default", "a"
	if err := src.Sink.Replace([]*apiclient.Object{o}, "1"); err != nil {
		b.Fatal(err)
	}
	inf.WaitForCacheSync(b.Context())
	b.Run("decoded once, copied", func(b *testing.B) {
		pods := informer.NewLister[podView](inf)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := pods.Get("default", "a"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode every time", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			o, _ := inf.Get("default", "a")
			var v podView
			if err := o.Decode(&v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// Informer.Get and Lister.Get answer a missing object the same way, and the
// way the server does: a NotFound (issue 36: one shape for "get from the
// cache"; Informer.Get said false where Lister.Get said NotFound).
func TestInformer_Get_and_Lister_Get_both_answer_NotFound(t *testing.T) {
	inf := runOnServer(t, informer.Options{Resource: apiclient.Pods, Namespace: "demo"}, `{"metadata":{"name":"a","namespace":"demo"}}`)
	if o, err := inf.Get("demo", "a"); err != nil || o.Metadata.Name != "a" {
		t.Fatalf("Informer.Get of a cached object: %v, %v", o, err)
	}
	_, ierr := inf.Get("demo", "gone")
	_, lerr := informer.NewLister[struct{}](inf).Get("demo", "gone")
	if !apiclient.IsNotFound(ierr) || !apiclient.IsNotFound(lerr) {
		t.Fatalf("a missing object: Informer.Get %v, Lister.Get %v; want NotFound from both", ierr, lerr)
	}
	if ierr.Error() != lerr.Error() {
		t.Fatalf("two NotFounds for one miss:\n%v\n%v", ierr, lerr)
	}
}
