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

// sortedKnownKeys is the store's keys in order, for the models' made-up deletions.
func sortedKnownKeys(k known) []string {
	keys := k.ListKeys()
	slices.Sort(keys)
	return keys
}

// deltaModel is DeltaFIFO as the package doc describes it.
type deltaModel struct {
	known    known
	queue    []deltaEntry // in pop order; found by linear search
	replaced bool
	pending  int
}

type deltaEntry struct {
	key    string
	deltas fifo.Deltas[*item]
}

func (m *deltaModel) find(key string) int {
	return slices.IndexFunc(m.queue, func(e deltaEntry) bool { return e.key == key })
}

func (m *deltaModel) add(d fifo.Delta[*item]) {
	i := m.find(d.Key)
	if i < 0 {
		m.queue = append(m.queue, deltaEntry{key: d.Key, deltas: fifo.Deltas[*item]{d}})
		return
	}
	ds := m.queue[i].deltas
	last := ds[len(ds)-1]
	if d.Type == fifo.Deleted && last.Type == fifo.Deleted {
		// Two deletes in a row: keep the one that is not a tombstone; if both are or
		// neither is, the newer.
		if last.Tombstone == nil && d.Tombstone != nil {
			return
		}
		ds[len(ds)-1] = d
		return
	}
	m.queue[i].deltas = append(ds, d)
}

func (m *deltaModel) write(t fifo.DeltaType, obj *item) {
	key := keyOf(obj)
	if t == fifo.Deleted && m.find(key) < 0 {
		if _, ok := m.known[key]; !ok {
			return // nothing to delete
		}
	}
	m.add(fifo.Delta[*item]{Type: t, Key: key, Object: obj})
}

func (m *deltaModel) replace(list []*item) {
	listed := map[string]bool{}
	for _, obj := range list {
		listed[keyOf(obj)] = true
		m.add(fifo.Delta[*item]{Type: fifo.Replaced, Key: keyOf(obj), Object: obj})
	}
	for _, e := range slices.Clone(m.queue) {
		if !listed[e.key] {
			m.add(modelTombstone(e.key, e.deltas[len(e.deltas)-1].Object))
		}
	}
	for _, key := range sortedKnownKeys(m.known) {
		if !listed[key] && m.find(key) < 0 {
			m.add(modelTombstone(key, m.known[key]))
		}
	}
	if !m.replaced {
		m.replaced, m.pending = true, len(m.queue)
	}
}

func (m *deltaModel) resync() {
	for _, key := range sortedKnownKeys(m.known) {
		if m.find(key) < 0 {
			m.add(fifo.Delta[*item]{Type: fifo.Sync, Key: key, Object: m.known[key]})
		}
	}
}

func (m *deltaModel) pop() (string, bool) {
	if len(m.queue) == 0 {
		return "", false
	}
	e := m.queue[0]
	m.queue = m.queue[1:]
	initial := !m.synced()
	if m.pending > 0 {
		m.pending--
	}
	m.known.apply(e.deltas)
	return format(e.deltas), initial
}

func (m *deltaModel) len() int     { return len(m.queue) }
func (m *deltaModel) synced() bool { return m.replaced && m.pending == 0 }
func (m *deltaModel) store() known { return m.known }

// inOrderModel is InOrderFIFO as the package doc describes it.
type inOrderModel struct {
	known    known
	queue    fifo.Deltas[*item]
	replaced bool
	pending  int
}

func (m *inOrderModel) write(t fifo.DeltaType, obj *item) {
	m.queue = append(m.queue, fifo.Delta[*item]{Type: t, Key: keyOf(obj), Object: obj})
}

func (m *inOrderModel) replace(list []*item) {
	listed := map[string]bool{}
	for _, obj := range list {
		listed[keyOf(obj)] = true
	}
	var queuedKeys []string // in order of first appearance
	for _, d := range m.queue {
		if !slices.Contains(queuedKeys, d.Key) {
			queuedKeys = append(queuedKeys, d.Key)
		}
	}
	var deletes fifo.Deltas[*item]
	for _, key := range queuedKeys {
		newest := m.newest(key)
		if !listed[key] && newest.Type != fifo.Deleted {
			deletes = append(deletes, modelTombstone(key, newest.Object))
		}
	}
	for _, key := range sortedKnownKeys(m.known) {
		if !listed[key] && !slices.Contains(queuedKeys, key) {
			deletes = append(deletes, modelTombstone(key, m.known[key]))
		}
	}
	m.queue = append(m.queue, deletes...)
	for _, obj := range list {
		m.queue = append(m.queue, fifo.Delta[*item]{Type: fifo.Replaced, Key: keyOf(obj), Object: obj})
	}
	if !m.replaced {
		m.replaced, m.pending = true, len(m.queue)
	}
}

// newest is the last queued entry for key, searched from the back.
func (m *inOrderModel) newest(key string) fifo.Delta[*item] {
	for i := len(m.queue) - 1; i >= 0; i-- {
		if m.queue[i].Key == key {
			return m.queue[i]
		}
	}
	panic("newest: key not queued: " + key)
}

func (m *inOrderModel) resync() {
	for _, key := range sortedKnownKeys(m.known) {
		queued := slices.ContainsFunc(m.queue, func(d fifo.Delta[*item]) bool { return d.Key == key })
		if !queued {
			m.queue = append(m.queue, fifo.Delta[*item]{Type: fifo.Sync, Key: key, Object: m.known[key]})
		}
	}
}

func (m *inOrderModel) pop() (string, bool) {
	if len(m.queue) == 0 {
		return "", false
	}
	d := m.queue[:1]
	m.queue = m.queue[1:]
	initial := !m.synced()
	if m.pending > 0 {
		m.pending--
	}
	m.known.apply(d)
	return format(d), initial
}

func (m *inOrderModel) len() int     { return len(m.queue) }
func (m *inOrderModel) synced() bool { return m.replaced && m.pending == 0 }
func (m *inOrderModel) store() known { return m.known }

func modelTombstone(key string, last *item) fifo.Delta[*item] {
	return fifo.Delta[*item]{Type: fifo.Deleted, Key: key, Object: last,
		Tombstone: &fifo.DeletedFinalStateUnknown[*item]{Key: key, Obj: last}}
}
