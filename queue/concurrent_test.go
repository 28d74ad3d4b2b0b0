package queue_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestQueue_invariants_hold_under_many_concurrent_workers drives one queue from
// producers that Add and AddAfter random keys, 16 workers that process them (and
// sometimes re-add the key they hold), and a goroutine stepping the fake clock, then
// drains it and checks what the queue promises:
//
//   - no key was ever held by two workers at once;
//   - no change was lost: each producer bumps a key's version before adding it, each
//     worker records the version it saw, and after the drain every key's last
//     processed version is its latest;
//   - the metrics agree with what the workers did.
//
// The random choices come from fixed seeds; the interleaving is the scheduler's, so
// each run explores a different one, and -race watches them all.
func TestQueue_invariants_hold_under_many_concurrent_workers(t *testing.T) {
	for _, numKeys := range []int{50, 3000} { // few keys: contention; many: idle entries swept
		for _, seed := range []uint64{1, 2, 3, 5, 8, 13, 21, 34} {
			t.Run(fmt.Sprintf("keys=%d/seed=%d", numKeys, seed), func(t *testing.T) {
				runConcurrent(t, seed, numKeys)
			})
		}
	}
}

func runConcurrent(t *testing.T, seed uint64, numKeys int) {
	const (
		producers    = 4
		workers      = 16
		addsEach     = 1000
		maxDelayStep = 5 // AddAfter delays are 1..5 ms
	)
	q, clock := newQueue(t)
	keys := make([]string, numKeys)
	for i := range keys {
		keys[i] = fmt.Sprintf("key-%04d", i)
	}
	index := make(map[string]int, numKeys)
	for i, k := range keys {
		index[k] = i
	}
	var (
		version    = make([]atomic.Int64, numKeys) // bumped by producers before they add
		processed  = make([]atomic.Int64, numKeys) // the version a worker saw last
		inflight   = make([]atomic.Int32, numKeys) // workers holding the key now
		violations atomic.Int64
		gets       atomic.Int64
	)

	var producing sync.WaitGroup
	for p := range producers {
		producing.Add(1)
		go func() {
			defer producing.Done()
			rng := rand.New(rand.NewPCG(seed, uint64(p)))
			for range addsEach {
				i := rng.IntN(numKeys)
				version[i].Add(1)
				if rng.IntN(4) == 0 {
					q.AddAfter(keys[i], time.Duration(1+rng.IntN(maxDelayStep))*time.Millisecond)
				} else {
					q.Add(keys[i])
				}
				if rng.IntN(8) == 0 {
					runtime.Gosched()
				}
			}
		}()
	}

	var working sync.WaitGroup
	for w := range workers {
		working.Add(1)
		go func() {
			defer working.Done()
			rng := rand.New(rand.NewPCG(seed, 1000+uint64(w)))
			for {
				key, quit := q.Get()
				if quit {
					return
				}
				gets.Add(1)
				i := index[key]
				if inflight[i].Add(1) != 1 {
					violations.Add(1)
				}
				processed[i].Store(version[i].Load())
				switch rng.IntN(8) {
				case 0:
					q.Add(key) // re-add while holding it: must come back after Done
				case 1:
					runtime.Gosched()
				}
				inflight[i].Add(-1)
				q.Done(key)
			}
		}()
	}

	stepping := make(chan struct{})
	steps := make(chan struct{})
	go func() { // moves the fake clock while producers run, so AddAfter keys fall due
		defer close(steps)
		for {
			select {
			case <-stepping:
				return
			default:
				clock.Step(time.Millisecond)
				runtime.Gosched()
			}
		}
	}()

	producing.Wait()
	close(stepping)
	<-steps
	clock.Step(time.Hour) // whatever AddAfter still holds is due now
	if got := q.Metrics().Delayed; got != 0 {
		t.Fatalf("Delayed after the clock passed every due time = %d, want 0", got)
	}
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		q.ShutDownWithDrain()
	}()
	working.Wait() // workers quit once the queue is empty
	if m := q.Metrics(); m.Processing != 0 {
		q.ShutDown() // a broken count would keep the drain waiting for ever
		t.Errorf("Processing after every worker quit = %d, want 0", m.Processing)
	}
	<-drained

	if n := violations.Load(); n != 0 {
		t.Errorf("%d times a key was handed to a second worker while the first held it", n)
	}
	for i, k := range keys {
		if got, want := processed[i].Load(), version[i].Load(); got != want {
			t.Errorf("%s: last processed version %d, latest %d: a change was lost", k, got, want)
		}
	}
	m := q.Metrics()
	if m.Depth != 0 || m.Processing != 0 || m.Delayed != 0 {
		t.Errorf("after the drain: Depth %d, Processing %d, Delayed %d; want all 0", m.Depth, m.Processing, m.Delayed)
	}
	n := uint64(gets.Load())
	if m.Adds != n || m.QueueTime.Count != n || m.WorkTime.Count != n {
		t.Errorf("Adds %d, QueueTime.Count %d, WorkTime.Count %d; want each = Gets %d",
			m.Adds, m.QueueTime.Count, m.WorkTime.Count, n)
	}
}
