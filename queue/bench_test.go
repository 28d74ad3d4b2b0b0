package queue_test

import (
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/queue"
)

// benchKey has the controller's key shape, so hashing costs what it will cost there.
type benchKey struct{ Namespace, Name string }

const benchKeys = 10_000

func makeBenchKeys() []benchKey {
	keys := make([]benchKey, benchKeys)
	for i := range keys {
		keys[i] = benchKey{Namespace: "ns-" + strconv.Itoa(i%10), Name: "pod-" + strconv.Itoa(i)}
	}
	return keys
}

// BenchmarkCycle is a key's round trip, Get→Done→Add, with 10,000 keys circulating
// among 1, 4 or 16 workers, with the duration metrics on (the default) and off;
// bench/workqueue runs the same against client-go.
func BenchmarkCycle(b *testing.B) {
	for _, noTiming := range []bool{false, true} {
		for _, workers := range []int{1, 4, 16} {
			b.Run(fmt.Sprintf("notiming=%v/workers=%d", noTiming, workers), func(b *testing.B) {
				q := queue.New(queue.Config[benchKey]{NoTiming: noTiming})
				for _, k := range makeBenchKeys() {
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
						for left.Add(-1) >= 0 { // at most `workers` keys are out: Get never waits
							k, _ := q.Get()
							q.Done(k)
							q.Add(k)
						}
					}()
				}
				wg.Wait()
				b.StopTimer()
				q.ShutDown()
			})
		}
	}
}

// BenchmarkProducer is an informer's handler adding keys round-robin while 1, 4 or 16
// workers take them; one op is one Add, and gets/op says how many were not absorbed.
func BenchmarkProducer(b *testing.B) {
	for _, workers := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			q := queue.New(queue.Config[benchKey]{})
			keys := makeBenchKeys()
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
				q.Add(keys[i%benchKeys])
			}
			q.ShutDown()
			wg.Wait()
			b.StopTimer()
			b.ReportMetric(float64(gets.Load())/float64(b.N), "gets/op")
		})
	}
}

// BenchmarkAddDuplicate is the cost of an Add absorbed by a key already queued.
func BenchmarkAddDuplicate(b *testing.B) {
	q := queue.New(queue.Config[benchKey]{})
	keys := makeBenchKeys()
	for _, k := range keys {
		q.Add(k)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		q.Add(keys[i%benchKeys])
	}
}

// BenchmarkAddAfter is the cost of a delayed Add: a heap push, then the move into
// the queue when the (fake) clock passes its due time.
func BenchmarkAddAfter(b *testing.B) {
	clock := clock.NewFake()
	q := queue.New(queue.Config[benchKey]{Clock: clock})
	keys := makeBenchKeys()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		k := keys[i%benchKeys]
		q.AddAfter(k, time.Duration(1+i%1000)*time.Millisecond)
		if i%benchKeys == benchKeys-1 {
			clock.Step(time.Second) // all due: they move into the queue
			for q.Len() > 0 {
				k, _ := q.Get()
				q.Done(k)
			}
		}
	}
}
