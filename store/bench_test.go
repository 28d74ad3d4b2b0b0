package store_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/kubewire/kubewire/store"
)

// benchPods returns n pods spread over 100 namespaces, with an app label.
func benchPods(n int) []*pod {
	pods := make([]*pod, n)
	for i := range pods {
		pods[i] = &pod{
			ns:     fmt.Sprintf("ns-%03d", i%100),
			name:   fmt.Sprintf("obj-%06d", i),
			rv:     "1",
			labels: map[string]string{"app": fmt.Sprintf("app-%d", i%10)},
		}
	}
	return pods
}

func benchStore(indexed bool) *store.Store[*pod] {
	if !indexed {
		return store.New(store.MetaKey[*pod], nil)
	}
	return store.New(store.MetaKey[*pod], store.Indexers[*pod]{
		store.NamespaceIndex: store.IndexByNamespace[*pod],
	})
}

// BenchmarkStoreAdd measures one Add (an insert or an overwrite) into a store of 10,000
// objects, with and without the namespace index.
func BenchmarkStoreAdd(b *testing.B) {
	pods := benchPods(10_000)
	for _, indexed := range []bool{false, true} {
		b.Run(fmt.Sprintf("namespace_index=%v", indexed), func(b *testing.B) {
			s := benchStore(indexed)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := s.Add(pods[i%len(pods)]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkStoreGet measures GetByKey in a store of 10,000 objects.
func BenchmarkStoreGet(b *testing.B) {
	pods := benchPods(10_000)
	s := benchStore(true)
	keys := make([]string, len(pods))
	for i, p := range pods {
		s.Add(p)
		keys[i], _ = store.MetaKey(p)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, ok := s.GetByKey(keys[i%len(keys)]); !ok {
			b.Fatal("missing")
		}
	}
}

// BenchmarkStoreByIndex measures ByIndex returning the 100 objects of one namespace out
// of 10,000.
func BenchmarkStoreByIndex(b *testing.B) {
	s := benchStore(true)
	for _, p := range benchPods(10_000) {
		s.Add(p)
	}
	namespaces := make([]string, 100)
	for i := range namespaces {
		namespaces[i] = fmt.Sprintf("ns-%03d", i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		objs, err := s.ByIndex(store.NamespaceIndex, namespaces[i%100])
		if err != nil || len(objs) != 100 {
			b.Fatalf("ByIndex: %d objects, %v", len(objs), err)
		}
	}
}

// BenchmarkStoreMemoryPerObject reports what the store itself costs per object (the
// objects are allocated before the measurement starts), as B/object: the figure quoted
// in the package doc.
func BenchmarkStoreMemoryPerObject(b *testing.B) {
	const n = 100_000
	pods := benchPods(n)
	for _, indexed := range []bool{false, true} {
		b.Run(fmt.Sprintf("namespace_index=%v", indexed), func(b *testing.B) {
			var perObject float64
			for i := 0; i < b.N; i++ {
				before := heapInUse()
				s := benchStore(indexed)
				for _, p := range pods {
					s.Add(p)
				}
				perObject = float64(heapInUse()-before) / n
				runtime.KeepAlive(s)
			}
			b.ReportMetric(perObject, "B/object")
		})
	}
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
