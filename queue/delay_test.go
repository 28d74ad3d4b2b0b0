package queue_test

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

func TestAddAfter(t *testing.T) {
	ms := time.Millisecond
	type addAfter struct {
		key string
		d   time.Duration
	}
	tests := []struct {
		name  string
		adds  []addAfter
		steps []time.Duration // the clock moves by each in turn; keys are taken after each
		want  []string        // per step: the keys that came out, space-separated
	}{{
		name:  "a_key_is_not_in_the_queue_before_its_time",
		adds:  []addAfter{{"a", 10 * ms}},
		steps: []time.Duration{9 * ms, 1 * ms},
		want:  []string{"", "a"},
	}, {
		name:  "keys_come_out_in_order_of_due_time_not_of_adding",
		adds:  []addAfter{{"c", 30 * ms}, {"a", 10 * ms}, {"b", 20 * ms}},
		steps: []time.Duration{time.Second},
		want:  []string{"a b c"},
	}, {
		name:  "added_twice_the_earlier_time_wins_when_it_comes_second",
		adds:  []addAfter{{"a", 10 * ms}, {"a", 5 * ms}},
		steps: []time.Duration{5 * ms, 5 * ms},
		want:  []string{"a", ""},
	}, {
		name:  "added_twice_the_earlier_time_wins_when_it_comes_first",
		adds:  []addAfter{{"a", 5 * ms}, {"a", 10 * ms}},
		steps: []time.Duration{5 * ms, 5 * ms},
		want:  []string{"a", ""},
	}, {
		name:  "zero_or_negative_delay_adds_at_once",
		adds:  []addAfter{{"a", 0}, {"b", -time.Second}},
		steps: []time.Duration{0},
		want:  []string{"a b"},
	}, {
		name:  "a_due_key_already_queued_is_absorbed",
		adds:  []addAfter{{"a", 0}, {"a", 10 * ms}},
		steps: []time.Duration{10 * ms}, // taken only after the step: both are in by then
		want:  []string{"a"},
	}, {
		name:  "keys_due_at_different_times_within_one_step_all_come_out",
		adds:  []addAfter{{"a", 1 * ms}, {"b", 2 * ms}, {"c", 3 * ms}},
		steps: []time.Duration{2 * ms, 2 * ms},
		want:  []string{"a b", "c"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, clock := newQueue(t)
			for _, a := range tt.adds {
				q.AddAfter(a.key, a.d)
			}
			for i, d := range tt.steps {
				clock.Step(d)
				if got := fmt.Sprint(getAll(t, q)); got != "["+tt.want[i]+"]" {
					t.Fatalf("after step %d (+%v): got %s, want [%s]", i+1, d, got, tt.want[i])
				}
			}
		})
	}
}

func TestAddAfter_many_waiting_keys_share_one_timer(t *testing.T) {
	q, clock := newQueue(t)
	for i := range 1000 {
		q.AddAfter(fmt.Sprint(i), time.Duration(1000-i)*time.Millisecond)
	}
	if got, want := clock.Timers(), 1; got != want {
		t.Fatalf("pending timers with 1000 keys waiting = %d, want %d", got, want)
	}
	if got, want := q.Metrics().Delayed, 1000; got != want {
		t.Fatalf("Delayed = %d, want %d", got, want)
	}
	clock.Step(500 * time.Millisecond)
	if got, want := q.Len(), 500; got != want { // due at 1..1000 ms, 500 ms inclusive
		t.Fatalf("Len after 500 ms = %d, want %d", got, want)
	}
	clock.Step(500 * time.Millisecond)
	if got, want := clock.Timers(), 0; got != want {
		t.Fatalf("pending timers once every key is due = %d, want %d", got, want)
	}
}

func TestAddAfter_a_key_waiting_and_added_meanwhile_is_added_again_when_due(t *testing.T) {
	q, clock := newQueue(t)
	q.AddAfter("a", 10*time.Millisecond)
	q.Add("a")
	if got := getAll(t, q); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("before the delay: got %q, want [a]", got)
	}
	clock.Step(10 * time.Millisecond)
	if got := getAll(t, q); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("after the delay: got %q, want [a]", got)
	}
}

func TestAddAfter_ShutDown_drops_waiting_keys_and_stops_the_timer(t *testing.T) {
	q, clock := newQueue(t)
	q.AddAfter("a", time.Second)
	q.ShutDown()
	q.AddAfter("b", time.Second) // ignored
	if got, want := clock.Timers(), 0; got != want {
		t.Fatalf("pending timers after ShutDown = %d, want %d", got, want)
	}
	clock.Step(time.Hour)
	if _, quit := q.Get(); !quit {
		t.Fatalf("Get after ShutDown with only delayed keys: quit = false, want true")
	}
	if got, want := q.Metrics().Retries, uint64(1); got != want {
		t.Fatalf("Retries = %d, want %d (the AddAfter after ShutDown does not count)", got, want)
	}
}
