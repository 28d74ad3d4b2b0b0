package fifo_test

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/fifo"
)

// The randomized model tests drive a FIFO and a reference model with the same random
// writes and pops, each feeding its own store the way an informer would, and compare
// everything observable after every step: what each pop hands over (and its initial
// flag), Len, HasSynced, and the store. The models are the package doc written as
// code, with the plainest data structures (a slice of keys searched linearly, no
// maps), so that the two can only agree if the doc and the code do. Seeds are fixed: a
// failure names the seed and step that replay it.

func TestDeltaFIFO_matches_a_reference_model(t *testing.T) {
	for seed := int64(1); seed <= 30; seed++ {
		t.Run(fmt.Sprintf("seed_%d", seed), func(t *testing.T) {
			k := known{}
			runModel(t, rand.New(rand.NewSource(seed)), fifo.NewDeltaFIFO(itemKey, k), k, &deltaModel{known: known{}})
		})
	}
}

func TestInOrderFIFO_matches_a_reference_model(t *testing.T) {
	for seed := int64(1); seed <= 30; seed++ {
		t.Run(fmt.Sprintf("seed_%d", seed), func(t *testing.T) {
			k := known{}
			runModel(t, rand.New(rand.NewSource(seed)), fifo.NewInOrderFIFO(itemKey, k), k, &inOrderModel{known: known{}})
		})
	}
}

// model is a reference FIFO. pop returns "" when empty.
type model interface {
	write(t fifo.DeltaType, obj *item)
	replace(list []*item)
	resync()
	pop() (line string, initial bool)
	len() int
	synced() bool
	store() known
}

func runModel(t *testing.T, rng *rand.Rand, q fifo.Queue[*item], k known, m model) {
	version := 0
	randomItem := func() *item {
		version++
		names := []string{"default/a", "default/b", "default/c", "prod/a", "prod/d", "node-1"}
		return newItem(t, fmt.Sprintf("%s@%d", names[rng.Intn(len(names))], version))
	}
	pop := func(where string) {
		want, wantInitial := m.pop()
		var got string
		var gotInitial bool
		err := q.Pop(context.Background(), func(d fifo.Deltas[*item], initial bool) error {
			checkDeltas(t, where, d)
			got, gotInitial = format(d), initial
			k.apply(d)
			return nil
		})
		if err != nil {
			t.Fatalf("%s: Pop: %v", where, err)
		}
		if got != want || gotInitial != wantInitial {
			t.Fatalf("%s: popped %q (initial %v), model popped %q (initial %v)", where, got, gotInitial, want, wantInitial)
		}
	}
	for step := 0; step < 300; step++ {
		var where string
		switch n := rng.Intn(20); {
		case n < 4:
			obj := randomItem()
			where = fmt.Sprintf("step %d: Add %s", step, obj)
			m.write(fifo.Added, obj)
			if err := q.Add(obj); err != nil {
				t.Fatalf("%s: %v", where, err)
			}
		case n < 7:
			obj := randomItem()
			where = fmt.Sprintf("step %d: Update %s", step, obj)
			m.write(fifo.Updated, obj)
			if err := q.Update(obj); err != nil {
				t.Fatalf("%s: %v", where, err)
			}
		case n < 10:
			obj := randomItem()
			where = fmt.Sprintf("step %d: Delete %s", step, obj)
			m.write(fifo.Deleted, obj)
			if err := q.Delete(obj); err != nil {
				t.Fatalf("%s: %v", where, err)
			}
		case n < 12:
			var list []*item
			for i := rng.Intn(5); i > 0; i-- {
				list = append(list, randomItem())
			}
			where = fmt.Sprintf("step %d: Replace %v", step, list)
			m.replace(list)
			if err := q.Replace(list, fmt.Sprint(version)); err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			if rng.Intn(2) == 0 {
				// A relist followed by a full drain must leave the store equal to the
				// list, whatever was queued or stored before: the point of Replace.
				for i := 0; q.Len() > 0; i++ {
					pop(fmt.Sprintf("%s, drain pop %d", where, i))
				}
				want := known{}
				for _, obj := range list {
					want[keyOf(obj)] = obj // a later duplicate wins, as in the store
				}
				if got, want := storeString(k), storeString(want); got != want {
					t.Fatalf("%s: store after drain = %s, want the list %s", where, got, want)
				}
			}
		case n < 13:
			where = fmt.Sprintf("step %d: Resync", step)
			m.resync()
			if err := q.Resync(); err != nil {
				t.Fatalf("%s: %v", where, err)
			}
		default:
			where = fmt.Sprintf("step %d: Pop", step)
			if q.Len() > 0 {
				pop(where)
			}
		}
		if got, want := q.Len(), m.len(); got != want {
			t.Fatalf("%s: Len() = %d, model %d", where, got, want)
		}
		if got, want := q.HasSynced(), m.synced(); got != want {
			t.Fatalf("%s: HasSynced() = %v, model %v", where, got, want)
		}
		if got, want := storeString(k), storeString(m.store()); got != want {
			t.Fatalf("%s: store = %s, model %s", where, got, want)
		}
	}
}

// checkDeltas checks what every Pop must hand over: something, all for one key, and
// never two Deleted in a row.
func checkDeltas(t *testing.T, where string, d fifo.Deltas[*item]) {
	t.Helper()
	if len(d) == 0 {
		t.Fatalf("%s: Pop handed over no deltas", where)
	}
	for i, delta := range d {
		if delta.Key != d[0].Key || delta.Key != keyOf(delta.Object) {
			t.Fatalf("%s: deltas for more than one key: %s", where, format(d))
		}
		if i > 0 && delta.Type == fifo.Deleted && d[i-1].Type == fifo.Deleted {
			t.Fatalf("%s: two Deleted in a row: %s", where, format(d))
		}
		if (delta.Tombstone != nil) && (delta.Type != fifo.Deleted || delta.Tombstone.Obj != delta.Object || delta.Tombstone.Key != delta.Key) {
			t.Fatalf("%s: malformed tombstone delta: %s", where, format(d))
		}
	}
}

func storeString(k known) string {
	var items []string
	for _, obj := range k {
		items = append(items, obj.String())
	}
	slices.Sort(items)
	return "[" + strings.Join(items, " ") + "]"
}
