package queue

import (
	"fmt"
	"testing"
)

// Idle entries live in the unexported map, so these tests are white-box: they check
// that sweeping bounds them and that the idle count stays true.

func TestQueue_idle_entries_are_swept_to_a_bound(t *testing.T) {
	q := New(Config[string]{})
	const n = 20_000
	for i := range n {
		q.Add(fmt.Sprint(i))
	}
	for i := range n {
		key, _ := q.Get()
		q.Done(key)
		if i%1000 == 0 {
			checkIdleCount(t, q)
		}
	}
	checkIdleCount(t, q)
	if got, limit := len(q.keys), keepIdle+1; got > limit {
		t.Fatalf("%d entries left after %d keys went idle, want at most %d", got, n, limit)
	}
}

func TestQueue_a_swept_key_can_be_added_again(t *testing.T) {
	q := New(Config[string]{})
	for i := range 3 * keepIdle {
		q.Add(fmt.Sprint(i))
		key, _ := q.Get()
		q.Done(key)
	}
	// Which keys a sweep deletes is up to the map's random iteration order, but with
	// 3×keepIdle keys gone idle most of them have been swept: take the first.
	swept := ""
	for i := range 3 * keepIdle {
		if _, ok := q.keys[fmt.Sprint(i)]; !ok {
			swept = fmt.Sprint(i)
			break
		}
	}
	if swept == "" {
		t.Fatalf("no key was swept out of %d idle ones", 3*keepIdle)
	}
	q.Add(swept)
	if key, _ := q.Get(); key != swept {
		t.Fatalf("Get = %q, want %s", key, swept)
	}
	checkIdleCount(t, q)
}

func TestQueue_an_idle_entry_is_used_again_by_Add(t *testing.T) {
	q := New(Config[string]{})
	q.Add("a")
	key, _ := q.Get()
	q.Done(key)
	before := q.keys["a"]
	if before == nil || q.idle != 1 {
		t.Fatalf("after Done: entry %v, idle %d; want the entry kept, idle 1", before, q.idle)
	}
	q.Add("a")
	if q.keys["a"] != before || q.idle != 0 {
		t.Fatalf("after Add: a new entry or idle %d; want the same entry, idle 0", q.idle)
	}
}

// checkIdleCount fails the test if q.idle is not the number of idle entries.
func checkIdleCount(t *testing.T, q *Queue[string]) {
	t.Helper()
	n := 0
	for _, e := range q.keys {
		if !e.dirty && !e.processing {
			n++
		}
	}
	if n != q.idle {
		t.Fatalf("idle count %d, but %d entries are idle", q.idle, n)
	}
}
