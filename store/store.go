package store

import (
	"fmt"
	"sync"
)

// Store is a thread-safe map from key to object, with indexes kept in step with it.
// T is the object type, usually a pointer such as *apiclient.Object.
//
// The zero value is not usable: a Store needs a key function, so build one with New.
// All methods are safe for concurrent use.
type Store[T any] struct {
	key KeyFunc[T] // set once by New

	mu      sync.RWMutex
	items   map[string]T // key → object; the objects themselves, never copies
	indexes []*index[T]  // one per indexer, in the order they were added
}

// New returns an empty store that keys objects with key and maintains one index per
// entry of indexers (which may be nil). It panics if key or an index function is nil,
// a programmer error.
func New[T any](key KeyFunc[T], indexers Indexers[T]) *Store[T] {
	if key == nil {
		panic("store.New: nil key function")
	}
	s := &Store[T]{key: key, items: make(map[string]T)}
	for _, name := range sortedNames(indexers) {
		if indexers[name] == nil {
			panic(fmt.Sprintf("store.New: index %q has a nil function", name))
		}
		s.indexes = append(s.indexes, newIndex(name, indexers[name]))
	}
	return s
}

// Add stores obj under its key, replacing any object already there. It is the same
// operation as Update: the API server's ADDED and MODIFIED both mean "this is now the
// object", and the informer, not the store, tells them apart. If the key function or
// an index function fails, Add returns the error and the store is unchanged.
// Cost: O(1) map work plus one call of each index function on obj (and on the old
// object, to move its key between index values).
func (s *Store[T]) Add(obj T) error { return s.put(obj) }

// Update is Add; see there.
func (s *Store[T]) Update(obj T) error { return s.put(obj) }

// put is Add and Update: key obj, then Put it.
func (s *Store[T]) put(obj T) error {
	key, err := s.key(obj)
	if err != nil {
		return fmt.Errorf("store: key: %w", err)
	}
	return s.Put(key, obj)
}

// Put is Add for a caller that already holds obj's key, as the informer does (a
// fifo Delta carries its Key): it skips the key function. key must be the one the
// key function would give; a wrong key files obj where Get(obj) will not find it.
// Index values for obj are computed before anything changes, so a failing index
// function leaves no half-written state behind.
func (s *Store[T]) Put(key string, obj T) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	// Room for the values of a few indexes on the stack: most stores have one or two,
	// and this saves an allocation on every write.
	var buf [4][]string
	values, err := s.indexValuesLocked(buf[:0], key, obj)
	if err != nil {
		return err
	}
	old, existed := s.items[key]
	for i, ix := range s.indexes {
		if existed {
			ix.remove(key, old, values[i])
		}
		ix.add(key, values[i])
	}
	s.items[key] = obj
	return nil
}

// Delete removes the object stored under obj's key; obj itself may be an older or
// newer version, only its key matters. Deleting a key that is not stored is not an
// error. Delete fails only if the key function does.
func (s *Store[T]) Delete(obj T) error {
	key, err := s.key(obj)
	if err != nil {
		return fmt.Errorf("store: key: %w", err)
	}
	s.DeleteKey(key)
	return nil
}

// DeleteKey is Delete for a caller that already holds the key. Deleting a key that
// is not stored does nothing.
func (s *Store[T]) DeleteKey(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, existed := s.items[key]
	if !existed {
		return
	}
	for _, ix := range s.indexes {
		ix.remove(key, old, nil)
	}
	delete(s.items, key)
}

// Get returns the stored object with obj's key, and whether there was one. The error
// is the key function's.
func (s *Store[T]) Get(obj T) (item T, exists bool, err error) {
	key, err := s.key(obj)
	if err != nil {
		var zero T
		return zero, false, fmt.Errorf("store: key: %w", err)
	}
	item, exists = s.GetByKey(key)
	return item, exists, nil
}

// GetByKey returns the object stored under key, and whether there was one. It is the
// reconcile loop's read: the work queue hands it a key, this turns it back into the
// object. Cost: one map lookup under the read lock.
func (s *Store[T]) GetByKey(key string) (item T, exists bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	item, exists = s.items[key]
	return item, exists
}

// List returns every stored object, in no particular order. Cost: O(n), one slice.
func (s *Store[T]) List() []T {
	s.mu.RLock()
	defer s.mu.RUnlock()
	list := make([]T, 0, len(s.items))
	for _, obj := range s.items {
		list = append(list, obj)
	}
	return list
}

// ListKeys returns every key, in no particular order. Cost: O(n), one slice; the
// strings themselves are shared, not copied.
func (s *Store[T]) ListKeys() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	keys := make([]string, 0, len(s.items))
	for key := range s.items {
		keys = append(keys, key)
	}
	return keys
}

// Len returns the number of stored objects.
func (s *Store[T]) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.items)
}

// Replace makes list the whole content of the store and rebuilds every index from it.
// When two objects in list share a key the later one wins. resourceVersion is ignored;
// it is there so that a Store has the same write methods as a fifo queue and a
// reflector can fill a store directly.
//
// Replace is atomic: everything is keyed and indexed into new maps first, and only if
// every key and index function succeeded do they replace the old ones. Cost: O(len(list))
// allocations, and the old maps become garbage in one piece.
func (s *Store[T]) Replace(list []T, resourceVersion string) error {
	items := make(map[string]T, len(list))
	for _, obj := range list {
		key, err := s.key(obj)
		if err != nil {
			return fmt.Errorf("store: replace: key: %w", err)
		}
		items[key] = obj
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	indexes := make([]*index[T], len(s.indexes))
	for i, old := range s.indexes {
		ix, err := buildIndex(old.name, old.fn, items)
		if err != nil {
			return fmt.Errorf("store: replace: %w", err)
		}
		indexes[i] = ix
	}
	s.items, s.indexes = items, indexes
	return nil
}

// indexValuesLocked calls every index function on obj, the object about to be stored
// under key, and appends the values to dst in index order. s.mu is held.
func (s *Store[T]) indexValuesLocked(dst [][]string, key string, obj T) ([][]string, error) {
	for _, ix := range s.indexes {
		v, err := ix.fn(obj)
		if err != nil {
			return nil, fmt.Errorf("store: index %q of %s: %w", ix.name, key, err)
		}
		dst = append(dst, v)
	}
	return dst, nil
}
