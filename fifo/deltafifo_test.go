package fifo_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"

	"github.com/kubewire/kubewire/fifo"
)

// TestDeltaFIFO_semantics pins each promise of DeltaFIFO: a store, a script of writes,
// and what draining the queue pops, one line per key.
func TestDeltaFIFO_semantics(t *testing.T) {
	tests := []struct {
		name   string
		stored []string // the store behind the queue
		steps  []string
		want   []string // one line per Pop
	}{
		{
			name:  "deltas_for_one_key_accumulate_in_order",
			steps: []string{"add default/a@1", "update default/a@2", "update default/a@3"},
			want:  []string{"Added default/a@1, Updated default/a@2, Updated default/a@3"},
		},
		{
			name:  "key_keeps_its_place_in_the_queue",
			steps: []string{"add default/a@1", "add default/b@2", "update default/a@3"},
			want:  []string{"Added default/a@1, Updated default/a@3", "Added default/b@2"},
		},
		{
			name:  "two_deletes_in_a_row_collapse_into_one",
			steps: []string{"add default/a@1", "delete default/a@1", "delete default/a@2"},
			want:  []string{"Added default/a@1, Deleted default/a@2"},
		},
		{
			name:   "a_tombstone_after_a_watch_delete_is_dropped",
			stored: []string{"default/a@1"},
			steps:  []string{"delete default/a@2", "replace"},
			want:   []string{"Deleted default/a@2"},
		},
		{
			name:   "a_watch_delete_after_a_tombstone_replaces_it",
			stored: []string{"default/a@1"},
			steps:  []string{"replace", "delete default/a@2"},
			want:   []string{"Deleted default/a@2"},
		},
		{
			name:  "delete_of_a_key_neither_queued_nor_stored_is_dropped",
			steps: []string{"delete default/a@1"},
			want:  nil,
		},
		{
			name:   "delete_of_a_stored_key_is_queued",
			stored: []string{"default/a@1"},
			steps:  []string{"delete default/a@2"},
			want:   []string{"Deleted default/a@2"},
		},
		{
			name:  "delete_of_a_queued_key_is_queued",
			steps: []string{"add default/a@1", "delete default/a@2"},
			want:  []string{"Added default/a@1, Deleted default/a@2"},
		},
		{
			name:  "replace_queues_replaced_for_every_listed_object_in_list_order",
			steps: []string{"replace default/b@1 default/a@1 node-1@1"},
			want:  []string{"Replaced default/b@1", "Replaced default/a@1", "Replaced node-1@1"},
		},
		{
			name:   "replace_tombstones_a_stored_key_missing_from_the_list_with_the_stored_object",
			stored: []string{"default/a@1", "default/c@1"},
			steps:  []string{"replace default/a@2"},
			want:   []string{"Replaced default/a@2", "Deleted default/c@1 (final state unknown)"},
		},
		{
			name:  "replace_tombstones_a_queued_key_missing_from_the_list_with_its_newest_object",
			steps: []string{"add default/d@1", "update default/d@2", "replace"},
			want:  []string{"Added default/d@1, Updated default/d@2, Deleted default/d@2 (final state unknown)"},
		},
		{
			name:   "replace_tombstones_missing_stored_keys_in_sorted_order",
			stored: []string{"default/z@1", "default/m@1", "default/a@1", "b@1"},
			steps:  []string{"replace"},
			want: []string{
				"Deleted b@1 (final state unknown)",
				"Deleted default/a@1 (final state unknown)",
				"Deleted default/m@1 (final state unknown)",
				"Deleted default/z@1 (final state unknown)",
			},
		},
		{
			name:   "replace_with_missing_keys_as_in_the_package_doc",
			stored: []string{"default/a@1", "default/b@1", "default/c@1"},
			steps:  []string{"update default/b@2", "add default/d@1", "replace default/a@3 default/e@1"},
			want: []string{
				"Updated default/b@2, Deleted default/b@2 (final state unknown)",
				"Added default/d@1, Deleted default/d@1 (final state unknown)",
				"Replaced default/a@3",
				"Replaced default/e@1",
				"Deleted default/c@1 (final state unknown)",
			},
		},
		{
			name:   "resync_queues_sync_for_stored_keys_that_are_not_queued",
			stored: []string{"default/a@1", "default/b@1", "default/c@1"},
			steps:  []string{"update default/b@2", "resync"},
			want:   []string{"Updated default/b@2", "Sync default/a@1", "Sync default/c@1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := newKnown(t, tt.stored...)
			q := fifo.NewDeltaFIFO(itemKey, k)
			script(t, q, tt.steps...)
			equalLines(t, "pops", drain(t, q, k), tt.want)
		})
	}
}

func TestDeltaFIFO_without_known_objects(t *testing.T) {
	q := fifo.NewDeltaFIFO[*item](itemKey, nil)
	script(t, q, "add default/a@1", "add default/b@1", "resync", "replace default/a@2")
	equalLines(t, "pops", drain(t, q, known{}), []string{
		"Added default/a@1, Replaced default/a@2",
		"Added default/b@1, Deleted default/b@1 (final state unknown)",
	})
}

func TestDeltaFIFO_len_counts_keys(t *testing.T) {
	q := fifo.NewDeltaFIFO[*item](itemKey, nil)
	script(t, q, "add default/a@1", "update default/a@2", "add default/b@1")
	if got, want := q.Len(), 2; got != want {
		t.Fatalf("Len() = %d, want %d", got, want)
	}
}

func TestDeltaFIFO_replace_with_a_key_error_queues_nothing(t *testing.T) {
	k := newKnown(t, "default/a@1")
	q := fifo.NewDeltaFIFO(itemKey, k)
	err := q.Replace([]*item{newItem(t, "default/b@1"), {ns: "default"}}, "9")
	if !errors.Is(err, errNoName) {
		t.Fatalf("Replace error = %v, want errNoName", err)
	}
	if got, want := q.Len(), 0; got != want {
		t.Fatalf("Len() after failed Replace = %d, want %d", got, want)
	}
	if q.HasSynced() {
		t.Fatal("a failed Replace counted as the first Replace")
	}
}

// After a burst (the first LIST of a big cluster) is drained, an idle queue gives
// the memory back: a Go map never shrinks and a slice popped from the front keeps
// its array, so without care 20,000 keys would leave about 2 MB behind.
func TestQueues_give_back_memory_once_drained(t *testing.T) {
	for _, impl := range queueKinds {
		t.Run(impl.name, func(t *testing.T) {
			q := impl.new(nil)
			before := heapAfterGC()
			for i := 0; i < 20000; i++ {
				if err := q.Add(&item{ns: "default", name: fmt.Sprintf("pod-%05d", i), rv: "1"}); err != nil {
					t.Fatal(err)
				}
			}
			for i := 0; i < 20000; i++ {
				if err := q.Pop(context.Background(), func(fifo.Deltas[*item], bool) error { return nil }); err != nil {
					t.Fatal(err)
				}
			}
			if grew := heapAfterGC() - before; grew > 256<<10 {
				t.Fatalf("a drained queue still holds %d KB", grew>>10)
			}
			runtime.KeepAlive(q)
		})
	}
}

func heapAfterGC() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}
