package store

import (
	"errors"
	"fmt"
	"slices"
)

// IndexFunc returns the values an object is filed under in one index: none, one or
// several (a pod indexed by the secrets it mounts has several). An error means the
// object cannot be indexed, and the write that brought it is refused.
type IndexFunc[T any] func(obj T) ([]string, error)

// Indexers names the index functions of a store: index name → function.
type Indexers[T any] map[string]IndexFunc[T]

// NamespaceIndex is the name under which IndexByNamespace is conventionally
// registered, as in client-go.
const NamespaceIndex = "namespace"

// IndexByNamespace files an object under its namespace. Cluster-scoped objects have
// none and are filed under no value, so ByIndex(NamespaceIndex, "") finds nothing.
func IndexByNamespace[T Meta](obj T) ([]string, error) {
	ns := obj.GetNamespace()
	if ns == "" {
		return nil, nil
	}
	return []string{ns}, nil
}

// ErrNoIndex is returned (wrapped) when a query names an index the store does not have.
var ErrNoIndex = errors.New("no such index")

// AddIndexers adds indexes to a store that may already hold objects, and builds them
// from those objects. It fails, adding none of them, if a name is already taken or an
// index function fails on a stored object. It panics on a nil function, a programmer
// error. Cost: one index function call per stored object per new index.
func (s *Store[T]) AddIndexers(indexers Indexers[T]) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	added := make([]*index[T], 0, len(indexers))
	for _, name := range sortedNames(indexers) {
		if indexers[name] == nil {
			panic(fmt.Sprintf("store.AddIndexers: index %q has a nil function", name))
		}
		if s.indexLocked(name) != nil {
			return fmt.Errorf("store: add index %q: already exists", name)
		}
		ix, err := buildIndex(name, indexers[name], s.items)
		if err != nil {
			return fmt.Errorf("store: add index: %w", err)
		}
		added = append(added, ix)
	}
	s.indexes = append(s.indexes, added...)
	return nil
}

// ByIndex returns the objects filed under value in the named index, in no particular
// order. Cost: one map lookup per object returned.
func (s *Store[T]) ByIndex(indexName, value string) ([]T, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	ix := s.indexLocked(indexName)
	if ix == nil {
		return nil, fmt.Errorf("store: by index %q: %w", indexName, ErrNoIndex)
	}
	set := ix.values[value]
	list := make([]T, 0, len(set))
	for key := range set {
		list = append(list, s.items[key])
	}
	return list, nil
}

// IndexKeys is ByIndex returning keys instead of objects: what a handler hands to the
// work queue when one object's change concerns many others.
func (s *Store[T]) IndexKeys(indexName, value string) ([]string, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	ix := s.indexLocked(indexName)
	if ix == nil {
		return nil, fmt.Errorf("store: index keys %q: %w", indexName, ErrNoIndex)
	}
	keys := make([]string, 0, len(ix.values[value]))
	for key := range ix.values[value] {
		keys = append(keys, key)
	}
	return keys, nil
}

// ListIndexFuncValues returns every value at least one stored object is filed under in
// the named index (every namespace that has objects, for NamespaceIndex), in no
// particular order; nil if there is no such index.
func (s *Store[T]) ListIndexFuncValues(indexName string) []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	ix := s.indexLocked(indexName)
	if ix == nil {
		return nil
	}
	values := make([]string, 0, len(ix.values))
	for v := range ix.values {
		values = append(values, v)
	}
	return values
}

// IndexSize is one index: its name and how many values objects are filed under.
type IndexSize struct {
	Name   string
	Values int
}

// IndexSizes returns each index's size, in the order the indexes were added
// (what a dashboard shows: a namespace index of 3 values spans 3 namespaces).
// O(indexes).
func (s *Store[T]) IndexSizes() []IndexSize {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]IndexSize, len(s.indexes))
	for i, ix := range s.indexes {
		out[i] = IndexSize{Name: ix.name, Values: len(ix.values)}
	}
	return out
}

// indexLocked finds an index by name; s.mu is held. A linear search: a store has a
// handful of indexes, and a slice keeps their order stable.
func (s *Store[T]) indexLocked(name string) *index[T] {
	for _, ix := range s.indexes {
		if ix.name == name {
			return ix
		}
	}
	return nil
}

// index is one named index: value → set of keys filed under it. A value with no keys
// left is deleted, so ListIndexFuncValues never reports an empty one.
type index[T any] struct {
	name   string
	fn     IndexFunc[T]
	values map[string]map[string]struct{}
}

func newIndex[T any](name string, fn IndexFunc[T]) *index[T] {
	return &index[T]{name: name, fn: fn, values: make(map[string]map[string]struct{})}
}

// buildIndex indexes every object of items from scratch: for Replace and AddIndexers.
func buildIndex[T any](name string, fn IndexFunc[T], items map[string]T) (*index[T], error) {
	ix := newIndex(name, fn)
	for key, obj := range items {
		values, err := fn(obj)
		if err != nil {
			return nil, fmt.Errorf("index %q of %s: %w", name, key, err)
		}
		ix.add(key, values)
	}
	return ix, nil
}

// add files key under each of values. Adding a key twice is harmless: it is a set.
func (ix *index[T]) add(key string, values []string) {
	for _, v := range values {
		set := ix.values[v]
		if set == nil {
			set = make(map[string]struct{})
			ix.values[v] = set
		}
		set[key] = struct{}{}
	}
}

// remove takes key out of the values old was filed under, except those in keep (the
// new object's values, which add is about to file it under again, so an update that
// leaves the namespace alone touches no set). The old values are recomputed rather than
// remembered, which saves memory on every object. If the index function now fails on
// old, which a pure function never does, remove cannot know the values and takes key
// out of every set instead: slower, but the delete or update still goes through.
func (ix *index[T]) remove(key string, old T, keep []string) {
	values, err := ix.fn(old)
	if err != nil {
		for v := range ix.values {
			ix.removeOne(v, key)
		}
		return
	}
	for _, v := range values {
		if !slices.Contains(keep, v) {
			ix.removeOne(v, key)
		}
	}
}

func (ix *index[T]) removeOne(value, key string) {
	set, ok := ix.values[value]
	if !ok {
		return
	}
	delete(set, key)
	if len(set) == 0 {
		delete(ix.values, value)
	}
}

// sortedNames returns the index names in order, so that indexes are built and
// consulted in the same order on every run.
func sortedNames[T any](indexers Indexers[T]) []string {
	names := make([]string, 0, len(indexers))
	for name := range indexers {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}
