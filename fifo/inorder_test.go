package fifo_test

import (
	"context"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/fifo"
)

// TestInOrderFIFO_semantics pins each promise of InOrderFIFO: a store, a script of
// writes, and what draining the queue pops, one line per entry.
func TestInOrderFIFO_semantics(t *testing.T) {
	tests := []struct {
		name   string
		stored []string
		steps  []string
		want   []string
	}{
		{
			name:  "every_write_is_its_own_entry_in_write_order",
			steps: []string{"add default/a@1", "add default/b@2", "update default/a@3"},
			want:  []string{"Added default/a@1", "Added default/b@2", "Updated default/a@3"},
		},
		{
			name:  "deletes_are_never_dropped_or_merged",
			steps: []string{"delete default/x@1", "delete default/x@2"},
			want:  []string{"Deleted default/x@1", "Deleted default/x@2"},
		},
		{
			name:   "replace_queues_tombstones_first_then_replaced_in_list_order",
			stored: []string{"default/c@1"},
			steps:  []string{"replace default/b@1 default/a@1"},
			want:   []string{"Deleted default/c@1 (final state unknown)", "Replaced default/b@1", "Replaced default/a@1"},
		},
		{
			name:  "replace_tombstones_a_queued_key_with_its_newest_object",
			steps: []string{"add default/d@1", "update default/d@2", "replace"},
			want:  []string{"Added default/d@1", "Updated default/d@2", "Deleted default/d@2 (final state unknown)"},
		},
		{
			name:   "replace_does_not_tombstone_a_key_whose_newest_entry_is_a_delete",
			stored: []string{"default/d@1"},
			steps:  []string{"delete default/d@2", "replace"},
			want:   []string{"Deleted default/d@2"},
		},
		{
			name:   "replace_tombstones_missing_stored_keys_in_sorted_order",
			stored: []string{"default/z@1", "default/m@1", "default/a@1"},
			steps:  []string{"replace"},
			want: []string{
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
				"Updated default/b@2",
				"Added default/d@1",
				"Deleted default/b@2 (final state unknown)",
				"Deleted default/d@1 (final state unknown)",
				"Deleted default/c@1 (final state unknown)",
				"Replaced default/a@3",
				"Replaced default/e@1",
			},
		},
		{
			name:   "resync_queues_sync_for_stored_keys_with_no_entry_queued",
			stored: []string{"default/a@1", "default/b@1", "default/c@1"},
			steps:  []string{"update default/b@2", "resync"},
			want:   []string{"Updated default/b@2", "Sync default/a@1", "Sync default/c@1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := newKnown(t, tt.stored...)
			q := fifo.NewInOrderFIFO(itemKey, k)
			script(t, q, tt.steps...)
			equalLines(t, "pops", drain(t, q, k), tt.want)
		})
	}
}

func TestInOrderFIFO_len_counts_entries(t *testing.T) {
	q := fifo.NewInOrderFIFO[*item](itemKey, nil)
	script(t, q, "add default/a@1", "update default/a@2", "add default/b@1")
	if got, want := q.Len(), 3; got != want {
		t.Fatalf("Len() = %d, want %d", got, want)
	}
}

// A Bookmark is popped in its place, after everything written before it, and a
// Replace neither takes it for an object nor makes up a delete for it.
func TestInOrderFIFO_bookmarks_keep_their_place(t *testing.T) {
	q := fifo.NewInOrderFIFO[*item](itemKey, nil)
	script(t, q, "add default/a@1")
	if err := q.Bookmark("7"); err != nil {
		t.Fatal(err)
	}
	script(t, q, "replace default/b@2")
	var got []string
	for q.Len() > 0 {
		err := q.Pop(context.Background(), func(ds fifo.Deltas[*item], _ bool) error {
			for _, d := range ds {
				if d.Type == fifo.Bookmark {
					got = append(got, "Bookmark "+d.ResourceVersion)
				} else {
					got = append(got, d.String())
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	want := "Added default/a | Bookmark 7 | Deleted default/a (final state unknown) | Replaced default/b"
	if s := strings.Join(got, " | "); s != want {
		t.Fatalf("pops:\n%s\nwant\n%s", s, want)
	}
}
