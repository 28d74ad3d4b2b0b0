package fifo_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/kubewire/kubewire/fifo"
)

// The tests in this file pin what both FIFOs promise alike, and run on each.

func TestQueue_pop_hands_over_an_item_written_after_it_started_waiting(t *testing.T) {
	for _, kind := range queueKinds {
		t.Run(kind.name, func(t *testing.T) {
			q := kind.new(known{})
			got := make(chan string, 1)
			errc := make(chan error, 1)
			go func() {
				errc <- q.Pop(context.Background(), func(d fifo.Deltas[*item], _ bool) error {
					got <- format(d)
					return nil
				})
			}()
			script(t, q, "add default/a@1")
			if err := <-errc; err != nil {
				t.Fatalf("Pop: %v", err)
			}
			if got, want := <-got, "Added default/a@1"; got != want {
				t.Fatalf("popped %q, want %q", got, want)
			}
		})
	}
}

func TestQueue_close_wakes_a_blocked_pop(t *testing.T) {
	for _, kind := range queueKinds {
		t.Run(kind.name, func(t *testing.T) {
			q := kind.new(known{})
			errc := make(chan error, 1)
			go func() { errc <- q.Pop(context.Background(), failIfCalled(t)) }()
			q.Close()
			if err := <-errc; !errors.Is(err, fifo.ErrClosed) {
				t.Fatalf("Pop after Close = %v, want ErrClosed", err)
			}
		})
	}
}

func TestQueue_closed_queue_hands_out_what_it_holds_then_ErrClosed(t *testing.T) {
	for _, kind := range queueKinds {
		t.Run(kind.name, func(t *testing.T) {
			q := kind.new(known{})
			script(t, q, "add default/a@1")
			q.Close()
			if err := q.Add(newItem(t, "default/b@1")); !errors.Is(err, fifo.ErrClosed) {
				t.Fatalf("Add after Close = %v, want ErrClosed", err)
			}
			if err := q.Replace(nil, "1"); !errors.Is(err, fifo.ErrClosed) {
				t.Fatalf("Replace after Close = %v, want ErrClosed", err)
			}
			equalLines(t, "pops after Close", drain(t, q, known{}), []string{"Added default/a@1"})
			if err := q.Pop(context.Background(), failIfCalled(t)); !errors.Is(err, fifo.ErrClosed) {
				t.Fatalf("Pop of a closed, empty queue = %v, want ErrClosed", err)
			}
		})
	}
}

func TestQueue_cancelled_context_wakes_a_blocked_pop(t *testing.T) {
	for _, kind := range queueKinds {
		t.Run(kind.name, func(t *testing.T) {
			q := kind.new(known{})
			ctx, cancel := context.WithCancel(context.Background())
			errc := make(chan error, 1)
			go func() { errc <- q.Pop(ctx, failIfCalled(t)) }()
			cancel()
			if err := <-errc; !errors.Is(err, context.Canceled) {
				t.Fatalf("Pop after cancel = %v, want context.Canceled", err)
			}
		})
	}
}

func TestQueue_done_context_wins_over_queued_items(t *testing.T) {
	for _, kind := range queueKinds {
		t.Run(kind.name, func(t *testing.T) {
			q := kind.new(known{})
			script(t, q, "add default/a@1")
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if err := q.Pop(ctx, failIfCalled(t)); !errors.Is(err, context.Canceled) {
				t.Fatalf("Pop with a done ctx = %v, want context.Canceled", err)
			}
			if got, want := q.Len(), 1; got != want {
				t.Fatalf("Len() = %d, want %d: nothing may be popped", got, want)
			}
		})
	}
}

func TestQueue_failed_process_returns_its_error_and_does_not_requeue(t *testing.T) {
	errBroken := errors.New("broken handler")
	for _, kind := range queueKinds {
		t.Run(kind.name, func(t *testing.T) {
			q := kind.new(known{})
			script(t, q, "add default/a@1", "add default/b@1")
			err := q.Pop(context.Background(), func(fifo.Deltas[*item], bool) error { return errBroken })
			if !errors.Is(err, errBroken) {
				t.Fatalf("Pop error = %v, want it to wrap errBroken", err)
			}
			if !strings.Contains(err.Error(), "default/a") {
				t.Fatalf("Pop error %q does not name the key", err)
			}
			equalLines(t, "what is left", drain(t, q, known{}), []string{"Added default/b@1"})
		})
	}
}

func TestQueue_has_synced(t *testing.T) {
	type check struct {
		step    string // a script step, or "pop"
		initial bool   // for "pop": the initial argument process must see
		synced  bool   // HasSynced() after the step
	}
	tests := []struct {
		name   string
		stored []string
		checks []check
	}{
		{"not_synced_before_the_first_replace_even_after_adds_are_popped", nil, []check{
			{step: "add default/x@1", synced: false},
			{step: "pop", initial: true, synced: false},
		}},
		{"synced_once_everything_the_first_replace_queued_is_popped", nil, []check{
			{step: "replace default/a@1 default/b@1", synced: false},
			{step: "pop", initial: true, synced: false},
			{step: "add default/c@1", synced: false},
			{step: "pop", initial: true, synced: true},
			{step: "pop", initial: false, synced: true},
		}},
		{"an_empty_first_replace_syncs_at_once", nil, []check{
			{step: "replace", synced: true},
		}},
		{"tombstones_of_the_first_replace_count_too", []string{"default/gone@1"}, []check{
			{step: "replace default/a@1", synced: false},
			{step: "pop", initial: true, synced: false},
			{step: "pop", initial: true, synced: true},
		}},
		{"synced_stays_true_through_later_replaces", nil, []check{
			{step: "replace", synced: true},
			{step: "replace default/a@1", synced: true},
			{step: "pop", initial: false, synced: true},
		}},
	}
	for _, kind := range queueKinds {
		for _, tt := range tests {
			t.Run(kind.name+"/"+tt.name, func(t *testing.T) {
				k := newKnown(t, tt.stored...)
				q := kind.new(k)
				for i, c := range tt.checks {
					if c.step != "pop" {
						script(t, q, c.step)
					} else {
						err := q.Pop(context.Background(), func(d fifo.Deltas[*item], initial bool) error {
							if initial != c.initial {
								t.Errorf("check %d: process saw initial = %v, want %v", i, initial, c.initial)
							}
							k.apply(d)
							return nil
						})
						if err != nil {
							t.Fatalf("check %d: Pop: %v", i, err)
						}
					}
					if got := q.HasSynced(); got != c.synced {
						t.Fatalf("check %d (%s): HasSynced() = %v, want %v", i, c.step, got, c.synced)
					}
				}
			})
		}
	}
}

func TestQueue_key_error_fails_the_write_and_queues_nothing(t *testing.T) {
	nameless := &item{ns: "default"}
	for _, kind := range queueKinds {
		t.Run(kind.name, func(t *testing.T) {
			q := kind.new(known{})
			for name, write := range map[string]func(*item) error{"Add": q.Add, "Update": q.Update, "Delete": q.Delete} {
				if err := write(nameless); !errors.Is(err, errNoName) {
					t.Errorf("%s(nameless) = %v, want errNoName", name, err)
				}
			}
			if err := q.Replace([]*item{newItem(t, "default/a@1"), nameless}, "1"); !errors.Is(err, errNoName) {
				t.Errorf("Replace with a nameless item = %v, want errNoName", err)
			}
			if got, want := q.Len(), 0; got != want {
				t.Fatalf("Len() = %d, want %d", got, want)
			}
		})
	}
}

func TestQueue_constructors_panic_without_a_key_function(t *testing.T) {
	for name, construct := range map[string]func(){
		"NewDeltaFIFO":   func() { fifo.NewDeltaFIFO[*item](nil, nil) },
		"NewInOrderFIFO": func() { fifo.NewInOrderFIFO[*item](nil, nil) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatalf("%s(nil, nil) did not panic", name)
				}
			}()
			construct()
		})
	}
}

// failIfCalled is a process function for Pops that must not hand anything out.
func failIfCalled(t *testing.T) fifo.ProcessFunc[*item] {
	return func(d fifo.Deltas[*item], _ bool) error {
		t.Errorf("process called with %s", format(d))
		return nil
	}
}

// TestQueue_concurrent_writers_and_a_popper_lose_nothing has four writers and one
// popper race; with -race it fails on any unsynchronised access, and without it still
// checks that every delta written comes out exactly once. The queue is closed when the
// writers are done, so a lost delta shows up as a count, not as a hang.
func TestQueue_concurrent_writers_and_a_popper_lose_nothing(t *testing.T) {
	const writers, perWriter = 4, 250
	for _, kind := range queueKinds {
		t.Run(kind.name, func(t *testing.T) {
			q := kind.new(known{})
			var wg sync.WaitGroup
			for w := 0; w < writers; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; i < perWriter; i++ {
						// Ten keys per writer, so DeltaFIFO groups and InOrderFIFO does not.
						obj := &item{ns: fmt.Sprintf("w%d", w), name: fmt.Sprintf("k%d", i%10), rv: fmt.Sprint(i)}
						if err := q.Update(obj); err != nil {
							t.Error(err)
							return
						}
					}
				}()
			}
			go func() {
				wg.Wait()
				q.Close()
			}()
			seen := map[string]int{} // "w/k@rv" → times popped
			for {
				err := q.Pop(context.Background(), func(d fifo.Deltas[*item], _ bool) error {
					for _, delta := range d {
						seen[delta.Object.String()]++
					}
					return nil
				})
				if errors.Is(err, fifo.ErrClosed) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if got, want := len(seen), writers*perWriter; got != want {
				t.Fatalf("popped %d distinct deltas, want %d", got, want)
			}
			for obj, n := range seen {
				if n != 1 {
					t.Fatalf("%s popped %d times", obj, n)
				}
			}
		})
	}
}

// Len does not wait for a Pop in progress: process runs under the queue's lock,
// and a scrape or the live page asking how deep the queue is must not wait for
// a handler (in the live page's step mode, for a click). Asked from process
// itself, where waiting would be a deadlock, it tells what is still queued.
func TestQueue_len_answers_while_a_pop_is_processing(t *testing.T) {
	for _, kind := range queueKinds {
		t.Run(kind.name, func(t *testing.T) {
			q := kind.new(known{})
			script(t, q, "add default/a@1", "add default/b@1", "add default/c@1")
			var during int
			if err := q.Pop(context.Background(), func(fifo.Deltas[*item], bool) error {
				during = q.Len()
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if during != 2 || q.Len() != 2 {
				t.Fatalf("Len while a popped item is processed = %d, after = %d; want 2 and 2", during, q.Len())
			}
		})
	}
}
