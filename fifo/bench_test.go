package fifo_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/kubewire/kubewire/fifo"
	"github.com/kubewire/kubewire/store"
)

func benchItems(n int) []*item {
	items := make([]*item, n)
	for i := range items {
		items[i] = &item{ns: fmt.Sprintf("ns-%03d", i%100), name: fmt.Sprintf("obj-%06d", i), rv: "1"}
	}
	return items
}

// BenchmarkAddPop writes 1,000,000 deltas round-robin over 10,000 keys, then pops
// until the queue is empty: DeltaFIFO pops 10,000 times (100 deltas each), InOrderFIFO
// 1,000,000 times. One op is the whole million; ns/delta is reported alongside.
func BenchmarkAddPop(b *testing.B) {
	const deltas, keys = 1_000_000, 10_000
	items := benchItems(keys)
	for _, kind := range queueKinds {
		b.Run(kind.name, func(b *testing.B) {
			b.ReportAllocs()
			ctx := context.Background()
			popped := 0
			process := func(d fifo.Deltas[*item], _ bool) error { popped += len(d); return nil }
			for i := 0; i < b.N; i++ {
				q := kind.new(nil)
				for j := 0; j < deltas; j++ {
					if err := q.Update(items[j%keys]); err != nil {
						b.Fatal(err)
					}
				}
				for q.Len() > 0 {
					if err := q.Pop(ctx, process); err != nil {
						b.Fatal(err)
					}
				}
			}
			if popped != b.N*deltas {
				b.Fatalf("popped %d deltas, want %d", popped, b.N*deltas)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*deltas), "ns/delta")
		})
	}
}

// BenchmarkReplace measures one Replace of a 90,000-object LIST into an empty queue
// whose store holds 100,000 objects: 90,000 Replaced deltas and 10,000 tombstones.
func BenchmarkReplace(b *testing.B) {
	const n = 100_000
	items := benchItems(n)
	s := store.New(store.MetaKey[*item], nil)
	for _, it := range items {
		if err := s.Add(it); err != nil {
			b.Fatal(err)
		}
	}
	list := items[:n-n/10] // the last 10% are gone from the server
	for _, kind := range queueKinds {
		b.Run(kind.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				q := kind.new(s)
				if err := q.Replace(list, "2"); err != nil {
					b.Fatal(err)
				}
				if got, want := q.Len(), n; got != want {
					b.Fatalf("Len() = %d, want %d", got, want)
				}
			}
		})
	}
}
