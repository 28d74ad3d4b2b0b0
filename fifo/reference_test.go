package fifo_test

import (
	"slices"

	"github.com/kubewire/kubewire/fifo"
)

// The reference models the randomized tests in model_test.go compare the FIFOs with.
// Each is its queue's section of the package doc, written as plainly as possible.

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
