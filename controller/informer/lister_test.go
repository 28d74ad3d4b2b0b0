package informer_test

import (
	"os"
	"runtime"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/controller/informer/informertest"
)

type podView struct {
	Metadata apiclient.ObjectMeta `json:"metadata"`
}

// A Lister decodes each resourceVersion of an object once: the same value until
// the object changes, a new one after.
func TestLister_decodes_once_per_resourceVersion(t *testing.T) {
	inf, src, start := informertest.New(t, informer.Options{})
	start()
	if err := src.Sink.Replace([]*apiclient.Object{informertest.Pod("a", "1")}, "1"); err != nil {
		t.Fatal(err)
	}
	inf.WaitForCacheSync(t.Context())
	pods := informer.NewLister[podView](inf)
	first, err := pods.Get("default", "a")
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := pods.Get("default", "a"); again != first {
		t.Fatal("a second Get of an unchanged object decoded it again")
	}
	if list, _ := pods.List(); len(list) != 1 || list[0] != first {
		t.Fatalf("List %v: want the value Get decoded", list)
	}
	if err := src.Sink.Update(informertest.Pod("a", "2")); err != nil {
		t.Fatal(err)
	}
	for o, _ := inf.Get("default", "a"); o.Metadata.ResourceVersion != "2"; o, _ = inf.Get("default", "a") {
		runtime.Gosched() // the informer applies the update on its own goroutine
	}
	after, err := pods.Get("default", "a")
	if err != nil || after == first || after.Metadata.ResourceVersion != "2" {
		t.Fatalf("after an update: %+v, %v; want a new value at rv 2", after, err)
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
	b.Run("memoised", func(b *testing.B) {
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
