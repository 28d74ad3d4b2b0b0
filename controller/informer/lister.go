package informer

import (
	"fmt"

	"github.com/kubewire/kubewire/apiclient"
)

// Lister reads an informer's cache as values of the caller's own type T — a struct
// with the fields a controller reads, as for apiclient.Typed — rather than as
// *apiclient.Object. It is the cache-backed reader a Reconciler is given:
// controller-runtime's client reads from the cache the same way, and client-go's
// generated listers (FooLister, FooNamespaceLister) do for generated types.
//
// Every value it returns is the caller's own: change it, keep it, write it
// back; nothing reaches the cache, and nobody else sees the change. Each cached
// object is decoded into a T once (apiclient.DecodeOnce keeps that T with the
// object: every change to an object is a new *apiclient.Object in the cache, so
// a T is decoded once per resourceVersion), and each read hands out a deep copy
// of it (copy.go), which costs a fraction of a decode (BenchmarkLister_Get).
// client-go's listers hand out the cache's own pointers and ask callers to
// DeepCopy before changing them, a rule nothing enforces.
//
// Safe for concurrent use. The zero value is not usable: build one with
// NewLister, or controller.Lister for a Manager's informer.
type Lister[T any] struct {
	inf *Informer
}

// NewLister reads inf's cache as T.
func NewLister[T any](inf *Informer) *Lister[T] { return &Lister[T]{inf: inf} }

// Get returns the cached object with this namespace and name ("" for a
// cluster-scoped object). When there is none, the error is a NotFound
// (apiclient.IsNotFound), as apiclient.Typed's Get would give: a Reconciler
// handles "it was deleted" the same way whether it reads the cache or the server.
func (l *Lister[T]) Get(namespace, name string) (*T, error) {
	o, ok := l.inf.store.GetByKey(key(namespace, name))
	if !ok {
		return nil, l.inf.notFound(namespace, name)
	}
	return l.decode(o)
}

// List returns every cached object, sorted by key.
func (l *Lister[T]) List() ([]*T, error) { return l.decodeAll(l.inf.sorted()) }

// ByIndex returns the cached objects whose index function gave value (see
// Informer.ByIndex).
func (l *Lister[T]) ByIndex(index, value string) ([]*T, error) {
	objs, err := l.inf.store.ByIndex(index, value)
	if err != nil {
		return nil, err
	}
	return l.decodeAll(objs)
}

func (l *Lister[T]) decode(o *apiclient.Object) (*T, error) {
	v, err := apiclient.DecodeOnce[T](o)
	if err != nil {
		return nil, fmt.Errorf("cache of %s: %s: %w", l.inf.Name(), o.Key(), err)
	}
	return deepCopy(v), nil
}

func (l *Lister[T]) decodeAll(objs []*apiclient.Object) ([]*T, error) {
	out := make([]*T, 0, len(objs))
	for _, o := range objs {
		v, err := l.decode(o)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}
