package store_test

import (
	"errors"
	"testing"

	"github.com/kubewire/kubewire/store"
)

func TestMetaKey(t *testing.T) {
	tests := []struct {
		name    string
		pod     *pod
		want    string
		wantErr error
	}{
		{"namespaced_object_is_keyed_namespace_slash_name", &pod{ns: "default", name: "web-1"}, "default/web-1", nil},
		{"cluster_scoped_object_is_keyed_by_name_alone", &pod{name: "node-1"}, "node-1", nil},
		{"object_without_a_name_is_an_error", &pod{ns: "default"}, "", store.ErrNoName},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := store.MetaKey(tt.pod)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("MetaKey() error = %v, want %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Fatalf("MetaKey() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSplitKey(t *testing.T) {
	tests := []struct {
		name, key, wantNS, wantName string
		wantErr                     bool
	}{
		{"namespaced_key_splits_at_the_slash", "default/web-1", "default", "web-1", false},
		{"cluster_scoped_key_is_all_name", "node-1", "", "node-1", false},
		{"empty_key_is_an_error", "", "", "", true},
		{"empty_namespace_is_an_error", "/web-1", "", "", true},
		{"empty_name_is_an_error", "default/", "", "", true},
		{"two_slashes_is_an_error", "a/b/c", "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ns, name, err := store.SplitKey(tt.key)
			if got, want := err != nil, tt.wantErr; got != want {
				t.Fatalf("SplitKey(%q) error = %v, want error: %v", tt.key, err, want)
			}
			if ns != tt.wantNS || name != tt.wantName {
				t.Fatalf("SplitKey(%q) = (%q, %q), want (%q, %q)", tt.key, ns, name, tt.wantNS, tt.wantName)
			}
		})
	}
}

func TestSplitKey_undoes_MetaKey(t *testing.T) {
	for _, p := range []*pod{{ns: "kube-system", name: "coredns-1"}, {name: "node-1"}} {
		key, err := store.MetaKey(p)
		if err != nil {
			t.Fatal(err)
		}
		ns, name, err := store.SplitKey(key)
		if err != nil {
			t.Fatalf("SplitKey(%q): %v", key, err)
		}
		if ns != p.ns || name != p.name {
			t.Fatalf("SplitKey(MetaKey(%v)) = (%q, %q)", p, ns, name)
		}
	}
}

// gone is a tombstone as package fifo makes them: it carries the key of what was deleted.
type gone struct{ key string }

func (g gone) TombstoneKey() string { return g.key }

func TestDeletionHandlingKey(t *testing.T) {
	metaKey := func(obj any) (string, error) {
		m, ok := obj.(store.Meta)
		if !ok {
			return "", errors.New("not a Meta")
		}
		return store.MetaKey(m)
	}
	key := store.DeletionHandlingKey[any](metaKey)
	tests := []struct {
		name    string
		obj     any
		want    string
		wantErr bool
	}{
		{"object_is_keyed_by_the_wrapped_function", &pod{ns: "default", name: "web-1"}, "default/web-1", false},
		{"tombstone_is_keyed_by_the_key_it_carries", gone{key: "default/web-2"}, "default/web-2", false},
		{"wrapped_function_errors_pass_through", 42, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := key(tt.obj)
			if (err != nil) != tt.wantErr {
				t.Fatalf("key(%v) error = %v, want error: %v", tt.obj, err, tt.wantErr)
			}
			if got != tt.want {
				t.Fatalf("key(%v) = %q, want %q", tt.obj, got, tt.want)
			}
		})
	}
}

func TestDeletionHandlingKey_lets_an_untyped_store_delete_by_tombstone(t *testing.T) {
	key := store.DeletionHandlingKey[store.Meta](store.MetaKey[store.Meta])
	s := store.New(key, nil)
	if err := s.Add(&pod{ns: "default", name: "web-1"}); err != nil {
		t.Fatal(err)
	}
	// A Meta-typed store can be handed a tombstone that also satisfies Meta.
	if err := s.Delete(metaGone{gone{key: "default/web-1"}}); err != nil {
		t.Fatal(err)
	}
	if got, want := s.Len(), 0; got != want {
		t.Fatalf("Len() after deleting by tombstone = %d, want %d", got, want)
	}
}

// metaGone is a tombstone that also satisfies Meta, with nothing in its getters: keying
// it by MetaKey would fail, so only the tombstone path can delete with it.
type metaGone struct{ gone }

func (metaGone) GetNamespace() string { return "" }
func (metaGone) GetName() string      { return "" }
