package queue_test

import (
	"runtime"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/queue"
)

// newQueue returns a queue of string keys on a fake clock, and the clock.
func newQueue(t testing.TB) (*queue.Queue[string], *clock.Fake) {
	t.Helper()
	clock := clock.NewFake()
	return queue.New(queue.Config[string]{Clock: clock}), clock
}

// get takes the next key, failing the test if the queue reports quit.
func get(t testing.TB, q *queue.Queue[string]) string {
	t.Helper()
	key, quit := q.Get()
	if quit {
		t.Fatalf("Get reported quit, want a key")
	}
	return key
}

// getAll takes every queued key, in order, marking each Done.
func getAll(t testing.TB, q *queue.Queue[string]) []string {
	t.Helper()
	var keys []string
	for q.Len() > 0 {
		key := get(t, q)
		q.Done(key)
		keys = append(keys, key)
	}
	return keys
}

func TestQueue(t *testing.T) {
	tests := []struct {
		name string
		run  func(q *queue.Queue[string]) []string // returns the keys handed out
		want []string
	}{{
		name: "keys_come_out_in_the_order_they_were_added",
		run: func(q *queue.Queue[string]) []string {
			q.Add("c")
			q.Add("a")
			q.Add("b")
			return getAll(t, q)
		},
		want: []string{"c", "a", "b"},
	}, {
		name: "adding_a_key_already_waiting_is_a_noop",
		run: func(q *queue.Queue[string]) []string {
			q.Add("a")
			q.Add("b")
			q.Add("a")
			q.Add("a")
			return getAll(t, q)
		},
		want: []string{"a", "b"},
	}, {
		name: "a_key_added_while_processing_is_not_handed_out_before_Done",
		run: func(q *queue.Queue[string]) []string {
			q.Add("a")
			a := get(t, q)
			q.Add("a") // while a is processing
			q.Add("b")
			got := []string{a}
			got = append(got, get(t, q)) // b, not a: a is still processing
			if n := q.Len(); n != 0 {
				t.Errorf("Len while a is processing = %d, want 0", n)
			}
			q.Done("b")
			q.Done(a) // now a goes back in
			return append(got, getAll(t, q)...)
		},
		want: []string{"a", "b", "a"},
	}, {
		name: "adds_while_processing_are_absorbed_into_one_requeue",
		run: func(q *queue.Queue[string]) []string {
			q.Add("a")
			a := get(t, q)
			q.Add("a")
			q.Add("a")
			q.Done(a)
			return append([]string{a}, getAll(t, q)...)
		},
		want: []string{"a", "a"},
	}, {
		name: "a_key_done_without_adds_is_not_handed_out_again",
		run: func(q *queue.Queue[string]) []string {
			q.Add("a")
			a := get(t, q)
			q.Done(a)
			q.Add("b")
			return append([]string{a}, getAll(t, q)...)
		},
		want: []string{"a", "b"},
	}, {
		name: "Done_on_a_key_not_handed_out_does_nothing",
		run: func(q *queue.Queue[string]) []string {
			q.Add("a")
			q.Done("a") // queued, not processing: must not queue a second copy
			q.Done("zz")
			return getAll(t, q)
		},
		want: []string{"a"},
	}, {
		name: "a_second_Done_does_nothing",
		run: func(q *queue.Queue[string]) []string {
			q.Add("a")
			a := get(t, q)
			q.Done(a)
			q.Add("a")
			q.Done(a) // a is queued again, not processing
			return append([]string{a}, getAll(t, q)...)
		},
		want: []string{"a", "a"},
	}, {
		name: "after_ShutDown_Get_hands_out_what_remains_then_quits",
		run: func(q *queue.Queue[string]) []string {
			q.Add("a")
			q.Add("b")
			q.ShutDown()
			q.Add("c") // ignored
			got := []string{get(t, q), get(t, q)}
			if _, quit := q.Get(); !quit {
				t.Errorf("Get after the queue emptied: quit = false, want true")
			}
			return got
		},
		want: []string{"a", "b"},
	}, {
		name: "a_requeue_pending_at_ShutDown_is_still_handed_out",
		run: func(q *queue.Queue[string]) []string {
			q.Add("a")
			a := get(t, q)
			q.Add("a")
			q.ShutDown()
			q.Done(a)
			got := []string{a, get(t, q)}
			if _, quit := q.Get(); !quit {
				t.Errorf("Get after the queue emptied: quit = false, want true")
			}
			return got
		},
		want: []string{"a", "a"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, _ := newQueue(t)
			got := tt.run(q)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("handed out %q, want %q", got, tt.want)
			}
		})
	}
}

func TestQueue_Get_blocks_until_a_key_is_added(t *testing.T) {
	q, _ := newQueue(t)
	got := make(chan string)
	go func() {
		key, _ := q.Get()
		got <- key
	}()
	q.Add("a")
	if key := <-got; key != "a" {
		t.Fatalf("Get = %q, want a", key)
	}
}

func TestQueue_ShutDown_wakes_every_waiting_Get(t *testing.T) {
	q, _ := newQueue(t)
	const workers = 4
	quits := make(chan bool)
	for range workers {
		go func() {
			_, quit := q.Get()
			quits <- quit
		}()
	}
	q.ShutDown()
	for range workers {
		if quit := <-quits; !quit {
			t.Fatalf("Get after ShutDown: quit = false, want true")
		}
	}
	if !q.ShuttingDown() {
		t.Fatalf("ShuttingDown = false after ShutDown")
	}
}

func TestQueue_ShutDownWithDrain_returns_only_when_every_key_handed_out_is_Done(t *testing.T) {
	q, _ := newQueue(t)
	q.Add("a")
	a := get(t, q)
	var done atomic.Bool
	go func() {
		waitShuttingDown(q)
		done.Store(true)
		q.Done(a)
	}()
	q.ShutDownWithDrain()
	if !done.Load() {
		t.Fatalf("ShutDownWithDrain returned while a was still processing")
	}
}

func TestQueue_ShutDownWithDrain_waits_for_queued_keys_to_be_processed(t *testing.T) {
	q, _ := newQueue(t)
	q.Add("a")
	q.Add("b")
	var processed atomic.Int32
	go func() { // a worker that starts only once the drain has begun
		waitShuttingDown(q)
		for {
			key, quit := q.Get()
			if quit {
				return
			}
			processed.Add(1)
			q.Done(key)
		}
	}()
	q.ShutDownWithDrain()
	if got, want := processed.Load(), int32(2); got != want {
		t.Fatalf("ShutDownWithDrain returned after %d keys were processed, want %d", got, want)
	}
}

func TestQueue_ShutDownWithDrain_on_an_idle_queue_returns_at_once(t *testing.T) {
	q, _ := newQueue(t)
	q.ShutDownWithDrain() // would hang the test if it waited
	if !q.ShuttingDown() {
		t.Fatalf("ShuttingDown = false after ShutDownWithDrain")
	}
}

func TestQueue_ShutDown_ends_a_waiting_ShutDownWithDrain(t *testing.T) {
	q, _ := newQueue(t)
	q.Add("a")
	get(t, q) // and never Done
	go func() {
		waitShuttingDown(q)
		q.ShutDown()
	}()
	q.ShutDownWithDrain() // would hang the test if ShutDown did not end it
}

// waitShuttingDown returns once q is shutting down. It yields rather than sleeps: the
// goroutine that shuts q down is already running.
func waitShuttingDown(q *queue.Queue[string]) {
	for !q.ShuttingDown() {
		runtime.Gosched()
	}
}

// clock.Fake is the fake the tests step; it must stay a Clock.
var _ queue.Clock = (*clock.Fake)(nil)

// Add says whether it queued the key: a trace narrates the deduplication with it
// ("queue dedup", controller/watch.go).
func TestQueue_Add_reports_whether_it_queued_the_key(t *testing.T) {
	q, _ := newQueue(t)
	steps := []struct {
		do   func() bool
		what string
		want bool
	}{
		{func() bool { return q.Add("a") }, "Add a", true},
		{func() bool { return q.Add("a") }, "Add a while it waits", false},
		{func() bool { return q.AddLowPriority("a") }, "AddLowPriority a while it waits", false},
		{func() bool { get(t, q); return q.Add("a") }, "Add a while it is processed", true},
		{func() bool { return q.Add("a") }, "Add a again while it is processed", false},
		{func() bool { return q.AddLowPriority("b") }, "AddLowPriority b", true},
		{func() bool { q.ShutDown(); return q.Add("c") }, "Add c after ShutDown", false},
	}
	for _, s := range steps {
		if got := s.do(); got != s.want {
			t.Errorf("%s: reported %v, want %v", s.what, got, s.want)
		}
	}
}
