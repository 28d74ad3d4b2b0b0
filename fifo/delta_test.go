package fifo_test

import (
	"context"
	"testing"

	"github.com/kubewire/kubewire/fifo"
	"github.com/kubewire/kubewire/store"
)

func TestDeltaType_string(t *testing.T) {
	tests := []struct {
		t    fifo.DeltaType
		want string
	}{
		{fifo.Added, "Added"},
		{fifo.Updated, "Updated"},
		{fifo.Deleted, "Deleted"},
		{fifo.Replaced, "Replaced"},
		{fifo.Sync, "Sync"},
		{fifo.DeltaType(0), "DeltaType(0)"},
	}
	for _, tt := range tests {
		if got := tt.t.String(); got != tt.want {
			t.Errorf("DeltaType(%d).String() = %q, want %q", uint8(tt.t), got, tt.want)
		}
	}
}

func TestDelta_string_names_the_type_and_key_and_flags_a_tombstone(t *testing.T) {
	obj := &item{ns: "default", name: "web-1", rv: "3"}
	plain := fifo.Delta[*item]{Type: fifo.Updated, Key: "default/web-1", Object: obj}
	if got, want := plain.String(), "Updated default/web-1"; got != want {
		t.Fatalf("String() = %q, want %q", got, want)
	}
	gone := fifo.Delta[*item]{Type: fifo.Deleted, Key: "default/web-1", Object: obj,
		Tombstone: &fifo.DeletedFinalStateUnknown[*item]{Key: "default/web-1", Obj: obj}}
	if got, want := gone.String(), "Deleted default/web-1 (final state unknown)"; got != want {
		t.Fatalf("String() = %q, want %q", got, want)
	}
}

func TestDeltas_oldest_and_newest(t *testing.T) {
	d := fifo.Deltas[*item]{{Type: fifo.Added, Key: "a"}, {Type: fifo.Updated, Key: "a"}}
	if got, want := d.Oldest().Type, fifo.Added; got != want {
		t.Fatalf("Oldest().Type = %v, want %v", got, want)
	}
	if got, want := d.Newest().Type, fifo.Updated; got != want {
		t.Fatalf("Newest().Type = %v, want %v", got, want)
	}
	var empty fifo.Deltas[*item]
	if got := empty.Newest(); got.Type != 0 || got.Object != nil {
		t.Fatalf("Newest() of no deltas = %v, want the zero Delta", got)
	}
	if got := empty.Oldest(); got.Type != 0 || got.Object != nil {
		t.Fatalf("Oldest() of no deltas = %v, want the zero Delta", got)
	}
}

// The contracts with package store, which fifo does not import: a *store.Store is the
// known objects behind a FIFO and can itself be a reflector's sink, and a tombstone is
// a store.Tombstone.
var (
	_ fifo.KnownObjects[*item] = (*store.Store[*item])(nil)
	_ fifo.Sink[*item]         = (*store.Store[*item])(nil)
	_ store.Tombstone          = fifo.DeletedFinalStateUnknown[*item]{}
	_ store.Tombstone          = (*fifo.DeletedFinalStateUnknown[*item])(nil)
)

func TestTombstone_is_keyed_by_stores_deletion_handling_key(t *testing.T) {
	key := store.DeletionHandlingKey[any](func(obj any) (string, error) {
		return itemKey(obj.(*item))
	})
	ts := &fifo.DeletedFinalStateUnknown[*item]{Key: "default/gone", Obj: nil}
	got, err := key(ts)
	if err != nil {
		t.Fatal(err)
	}
	if want := "default/gone"; got != want {
		t.Fatalf("key(tombstone) = %q, want %q", got, want)
	}
}

// TestReplace_then_drain_leaves_the_store_equal_to_the_list runs the package doc's
// Replace through each FIFO into a real *store.Store.
func TestReplace_then_drain_leaves_the_store_equal_to_the_list(t *testing.T) {
	for _, kind := range queueKinds {
		t.Run(kind.name, func(t *testing.T) {
			s := store.New(store.MetaKey[*item], nil)
			for _, spec := range []string{"default/a@1", "default/b@1", "default/c@1"} {
				if err := s.Add(newItem(t, spec)); err != nil {
					t.Fatal(err)
				}
			}
			q := kind.new(s)
			script(t, q, "update default/b@2", "add default/d@1", "replace default/a@3 default/e@1")
			for q.Len() > 0 {
				err := q.Pop(context.Background(), func(deltas fifo.Deltas[*item], _ bool) error {
					for _, d := range deltas {
						var err error
						if d.Type == fifo.Deleted {
							err = s.Delete(d.Object)
						} else {
							err = s.Update(d.Object)
						}
						if err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			var got []string
			for _, key := range []string{"default/a", "default/b", "default/c", "default/d", "default/e"} {
				if obj, ok := s.GetByKey(key); ok {
					got = append(got, obj.String())
				}
			}
			equalLines(t, "store after drain", got, []string{"default/a@3", "default/e@1"})
		})
	}
}
