// Package workqueue_test times kubewire's queue against client-go's util/workqueue on
// the same workloads, in one process, so that the ratio means something. It lives in
// the nested module bench/ so that the main module never compiles client-go.
//
//	cd bench && go test -run '^$' -bench . -benchmem -count 6 ./workqueue
//
// Every benchmark is run for both queues and for 1, 4 and 16 workers, over 10,000
// distinct keys of the controller's shape ({Namespace, Name}):
//
//   - Cycle: the 10,000 keys circulate; a worker Gets a key, marks it Done and Adds it
//     back. One op is one Add, one Get and one Done; no Add is absorbed, so ns/op is
//     the cost of a key's round trip through the queue.
//   - Producer: one goroutine (an informer's handler) Adds keys round-robin while the
//     workers Get and Done them. One op is one Add; when the workers fall behind, Adds
//     of keys still queued are absorbed, so gets/op (reported) is below 1: compare
//     it too, since a slower consumer absorbs more.
//
// Each queue runs in two configurations, so that like is compared with like:
//
//   - "kubewire": the default, all metrics including the durations, which cost three
//     clock reads per key;
//   - "kubewire-notiming": Config.NoTiming, counters only, no clock reads;
//   - "clientgo": unnamed, as NewTyped builds it, which records no metrics at all;
//   - "clientgo-metrics": named, with the cheapest provider there can be (atomic
//     counters, histograms that only count), so it pays for its clock reads and
//     timestamp maps but not for Prometheus.
//
// The fair pairs are kubewire / clientgo-metrics and kubewire-notiming / clientgo.
package workqueue_test

import (
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kubewire/kubewire/queue"
	"k8s.io/client-go/util/workqueue"
)

// Key is the controller's key: what a reconcile is about.
type Key struct{ Namespace, Name string }

// numKeys is how many distinct keys every benchmark uses.
const numKeys = 10_000

// workqueueish is what the benchmarks need of a queue; both queues have it.
type workqueueish interface {
	Add(Key)
	Get() (Key, bool)
	Done(Key)
	ShutDown()
}

// kubewireQueue drops what kubewire's Add reports (whether it queued the key),
// which client-go's does not.
type kubewireQueue struct{ *queue.Queue[Key] }

func (q kubewireQueue) Add(k Key) { q.Queue.Add(k) }

// queues builds each contender afresh for every run.
var queues = []struct {
	name string
	new  func() workqueueish
}{
	{"kubewire", func() workqueueish { return kubewireQueue{queue.New(queue.Config[Key]{})} }},
	{"kubewire-notiming", func() workqueueish { return kubewireQueue{queue.New(queue.Config[Key]{NoTiming: true})} }},
	{"clientgo", func() workqueueish { return workqueue.NewTyped[Key]() }},
	{"clientgo-metrics", func() workqueueish {
		return workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[Key]{
			Name: "bench", MetricsProvider: atomicProvider{},
		})
	}},
}

var workerCounts = []int{1, 4, 16}

func BenchmarkCycle(b *testing.B) {
	for _, c := range queues {
		for _, w := range workerCounts {
			b.Run(fmt.Sprintf("queue=%s/workers=%d", c.name, w), func(b *testing.B) {
				cycle(b, c.new(), w)
			})
		}
	}
}

func BenchmarkProducer(b *testing.B) {
	for _, c := range queues {
		for _, w := range workerCounts {
			b.Run(fmt.Sprintf("queue=%s/workers=%d", c.name, w), func(b *testing.B) {
				producer(b, c.new(), w)
			})
		}
	}
}

// cycle runs b.N Get→Done→Add round trips spread over workers goroutines, with all
// numKeys keys in the queue from the start. The queue never runs dry (at most
// `workers` keys are out of it at once), so no Get blocks for lack of work.
func cycle(b *testing.B, q workqueueish, workers int) {
	keys := makeKeys()
	for _, k := range keys {
		q.Add(k)
	}
	var left atomic.Int64
	left.Store(int64(b.N))
	var wg sync.WaitGroup
	b.ReportAllocs()
	b.ResetTimer()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for left.Add(-1) >= 0 {
				k, _ := q.Get()
				q.Done(k)
				q.Add(k)
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	q.ShutDown()
}

// producer Adds b.N keys round-robin from the benchmark goroutine while workers
// goroutines Get and Done, then shuts the queue down and waits for the workers to
// empty it.
func producer(b *testing.B, q workqueueish, workers int) {
	keys := makeKeys()
	var gets atomic.Int64
	var wg sync.WaitGroup
	b.ReportAllocs()
	b.ResetTimer()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k, quit := q.Get()
				if quit {
					return
				}
				gets.Add(1)
				q.Done(k)
			}
		}()
	}
	for i := range b.N {
		q.Add(keys[i%numKeys])
	}
	q.ShutDown()
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(gets.Load())/float64(b.N), "gets/op")
}

func makeKeys() []Key {
	keys := make([]Key, numKeys)
	for i := range keys {
		keys[i] = Key{Namespace: "ns-" + strconv.Itoa(i%10), Name: "pod-" + strconv.Itoa(i)}
	}
	return keys
}

// atomicProvider gives client-go the cheapest metrics a provider can: counters and
// gauges are atomics, histograms keep a count and a sum.
type atomicProvider struct{}

type atomicMetric struct{ v atomic.Uint64 }

func (m *atomicMetric) Inc()            { m.v.Add(1) }
func (m *atomicMetric) Dec()            { m.v.Add(^uint64(0)) }
func (m *atomicMetric) Set(v float64)   { m.v.Store(uint64(v)) }
func (m *atomicMetric) Observe(float64) { m.v.Add(1) }

func (atomicProvider) NewDepthMetric(string) workqueue.GaugeMetric       { return new(atomicMetric) }
func (atomicProvider) NewAddsMetric(string) workqueue.CounterMetric      { return new(atomicMetric) }
func (atomicProvider) NewLatencyMetric(string) workqueue.HistogramMetric { return new(atomicMetric) }
func (atomicProvider) NewWorkDurationMetric(string) workqueue.HistogramMetric {
	return new(atomicMetric)
}
func (atomicProvider) NewRetriesMetric(string) workqueue.CounterMetric { return new(atomicMetric) }
func (atomicProvider) NewUnfinishedWorkSecondsMetric(string) workqueue.SettableGaugeMetric {
	return new(atomicMetric)
}
func (atomicProvider) NewLongestRunningProcessorSecondsMetric(string) workqueue.SettableGaugeMetric {
	return new(atomicMetric)
}
