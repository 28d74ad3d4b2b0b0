package queue_test

import (
	"slices"
	"testing"
)

// Keys added at low priority wait behind every key added with Add, in their own
// order; Len counts both.
func TestPriority_low_keys_wait_behind_the_others(t *testing.T) {
	q, _ := newQueue(t)
	q.AddLowPriority("list-1")
	q.AddLowPriority("list-2")
	q.Add("changed")
	q.AddLowPriority("list-3")
	if got, want := q.Len(), 4; got != want {
		t.Fatalf("Len = %d, want %d", got, want)
	}
	if got, want := getAll(t, q), []string{"changed", "list-1", "list-2", "list-3"}; !slices.Equal(got, want) {
		t.Fatalf("order %q, want %q", got, want)
	}
}

// A real change to a key still waiting from the initial list moves it ahead,
// once: it is handed out once, at normal priority. AddLowPriority never demotes.
func TestPriority_Add_promotes_and_AddLowPriority_never_demotes(t *testing.T) {
	q, _ := newQueue(t)
	for _, k := range []string{"a", "b", "c"} {
		q.AddLowPriority(k)
	}
	q.Add("x")
	q.Add("c")            // promoted
	q.AddLowPriority("x") // stays where it is
	q.AddLowPriority("c") // stays where it is
	if got, want := q.Len(), 4; got != want {
		t.Fatalf("Len = %d, want %d (a promoted key counted twice?)", got, want)
	}
	if got, want := getAll(t, q), []string{"x", "c", "a", "b"}; !slices.Equal(got, want) {
		t.Fatalf("order %q, want %q", got, want)
	}
	if got := q.Len(); got != 0 {
		t.Fatalf("Len = %d after taking every key", got)
	}
}

// A key added again while it is processed goes back at Done; at normal priority
// if any of those adds was normal.
func TestPriority_requeue_keeps_the_highest_priority_asked(t *testing.T) {
	q, _ := newQueue(t)
	q.AddLowPriority("k")
	q.AddLowPriority("other")
	if got := get(t, q); got != "k" {
		t.Fatalf("got %q, want k", got)
	}
	q.AddLowPriority("k")
	q.Add("k")
	q.Done("k")
	if got, want := getAll(t, q), []string{"k", "other"}; !slices.Equal(got, want) {
		t.Fatalf("order %q, want %q: k was re-added at normal priority while processing", got, want)
	}
}
