package store

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kubewire/kubewire/apiclient/clock"
)

// Meta is all the store needs to know about an object to key it and to index it by
// namespace. kubewire's *apiclient.Object satisfies it, and so does any type with
// these two getters.
type Meta interface {
	GetNamespace() string // "" for cluster-scoped objects
	GetName() string
}

// KeyFunc returns the key an object is stored under. It must be deterministic: the
// same object gives the same key every time, and every version of one API object gives
// the same key, or an Update would leave the old version behind under another key.
type KeyFunc[T any] func(obj T) (string, error)

// ErrNoName is returned by MetaKey for an object without a name. The API server never
// sends one; a test or a half-built object might.
var ErrNoName = errors.New("object has no name")

// MetaKey is the standard key function: "namespace/name", or "name" alone for a
// cluster-scoped object. It allocates the key string once for a namespaced object and
// not at all for a cluster-scoped one. obj must not be a nil pointer.
//
// It is generic so that it fits a KeyFunc[T] for any concrete T, e.g.
// store.MetaKey[*apiclient.Object].
func MetaKey[T Meta](obj T) (string, error) {
	name := obj.GetName()
	if name == "" {
		return "", ErrNoName
	}
	return clock.ObjectKey(obj.GetNamespace(), name), nil
}

// SplitKey takes a key made by MetaKey apart: "default/web-1" gives ("default",
// "web-1"), "node-1" gives ("", "node-1"). A key with an empty part or with more than
// one slash is an error, since MetaKey never makes one.
func SplitKey(key string) (namespace, name string, err error) {
	ns, name, namespaced := strings.Cut(key, "/")
	if !namespaced {
		if key == "" {
			return "", "", errors.New("split key: empty key")
		}
		return "", key, nil
	}
	if ns == "" || name == "" || strings.Contains(name, "/") {
		return "", "", fmt.Errorf("split key %q: want namespace/name or name", key)
	}
	return ns, name, nil
}

// Tombstone is how a deletion marker looks to this package: a value that stands for an
// object which was deleted, and knows that object's key. fifo.DeletedFinalStateUnknown
// has this method; store does not import fifo, so it asks for the method instead of
// the type.
type Tombstone interface {
	TombstoneKey() string
}

// DeletionHandlingKey wraps key so that a Tombstone is keyed by the key it carries
// rather than passed to key (which would fail on it, or worse, key it wrongly).
//
// Only a store or handler whose T is an interface type (any, Meta) can be handed a
// tombstone in place of an object; with a concrete T such as *apiclient.Object the
// compiler already rules that out, and the wrapper returns what key returns. It costs
// one type assertion per call.
func DeletionHandlingKey[T any](key KeyFunc[T]) KeyFunc[T] {
	return func(obj T) (string, error) {
		if t, ok := any(obj).(Tombstone); ok {
			return t.TombstoneKey(), nil
		}
		return key(obj)
	}
}
