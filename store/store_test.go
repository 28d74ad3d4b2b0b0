package store_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/kubewire/kubewire/store"
)

func TestStore_add_then_get_by_key_returns_the_same_object(t *testing.T) {
	s := newStore(t)
	p := newPod(t, "default/web-1@1")
	if err := s.Add(p); err != nil {
		t.Fatal(err)
	}
	got, ok := s.GetByKey("default/web-1")
	if !ok {
		t.Fatalf("GetByKey: not found")
	}
	if got != p {
		t.Fatalf("GetByKey returned %p, want the stored pointer %p (the store never copies)", got, p)
	}
	got, ok, err := s.Get(&pod{ns: "default", name: "web-1"})
	if err != nil || !ok || got != p {
		t.Fatalf("Get(same key) = %v, %v, %v; want the stored pod", got, ok, err)
	}
}

func TestStore_update_overwrites_under_the_same_key(t *testing.T) {
	s := newStore(t)
	mustAdd(t, s, "default/web-1@1")
	if err := s.Update(newPod(t, "default/web-1@2")); err != nil {
		t.Fatal(err)
	}
	if got, want := keysOf(s.List()), "default/web-1@2"; got != want {
		t.Fatalf("List() = %q, want %q", got, want)
	}
}

func TestStore_add_of_an_existing_key_is_an_update(t *testing.T) {
	s := newStore(t)
	mustAdd(t, s, "default/web-1@1", "default/web-1@2")
	if got, want := keysOf(s.List()), "default/web-1@2"; got != want {
		t.Fatalf("List() = %q, want %q", got, want)
	}
}

func TestStore_delete(t *testing.T) {
	tests := []struct {
		name   string
		stored []string
		delete string
		want   string
	}{
		{"delete_removes_the_object_with_the_same_key", []string{"default/a@1", "default/b@1"}, "default/a@9", "default/b@1"},
		{"delete_of_a_missing_key_is_not_an_error", []string{"default/a@1"}, "default/zzz@1", "default/a@1"},
		{"delete_of_a_cluster_scoped_object", []string{"node-1@1", "default/node-1@1"}, "node-1@1", "default/node-1@1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t)
			mustAdd(t, s, tt.stored...)
			if err := s.Delete(newPod(t, tt.delete)); err != nil {
				t.Fatalf("Delete: %v", err)
			}
			if got := keysOf(s.List()); got != tt.want {
				t.Fatalf("List() = %q, want %q", got, tt.want)
			}
		})
	}
}

// Put and DeleteKey are Add and Delete for a caller that has the key already: the
// store ends the same, and the key function is not called (it would fail here).
func TestStore_put_and_delete_key_use_the_given_key(t *testing.T) {
	s := store.New(func(*pod) (string, error) { return "", errors.New("key function called") }, nil)
	if err := s.Put("default/a", newPod(t, "default/a@1")); err != nil {
		t.Fatal(err)
	}
	if got, ok := s.GetByKey("default/a"); !ok || got.rv != "1" {
		t.Fatalf("GetByKey after Put = %v, %v; want default/a@1", got, ok)
	}
	s.DeleteKey("default/a")
	s.DeleteKey("default/zzz") // not stored: nothing happens
	if got := s.Len(); got != 0 {
		t.Fatalf("Len after DeleteKey = %d, want 0", got)
	}
}

func TestStore_key_function_errors_are_returned_and_change_nothing(t *testing.T) {
	s := newStore(t)
	mustAdd(t, s, "default/a@1")
	nameless := &pod{ns: "default"}
	for name, op := range map[string]func() error{
		"Add":     func() error { return s.Add(nameless) },
		"Update":  func() error { return s.Update(nameless) },
		"Delete":  func() error { return s.Delete(nameless) },
		"Get":     func() error { _, _, err := s.Get(nameless); return err },
		"Replace": func() error { return s.Replace([]*pod{newPod(t, "default/b@1"), nameless}, "9") },
	} {
		if err := op(); !errors.Is(err, store.ErrNoName) {
			t.Errorf("%s(nameless) error = %v, want ErrNoName", name, err)
		}
	}
	if got, want := keysOf(s.List()), "default/a@1"; got != want {
		t.Fatalf("List() after failed writes = %q, want %q", got, want)
	}
}

func TestStore_replace(t *testing.T) {
	tests := []struct {
		name         string
		stored, list []string
		want         string
	}{
		{"replace_makes_the_list_the_whole_content", []string{"default/a@1", "default/b@1"}, []string{"default/b@2", "default/c@1"}, "default/b@2 default/c@1"},
		{"replace_with_nothing_empties_the_store", []string{"default/a@1"}, nil, ""},
		{"later_duplicate_in_the_list_wins", nil, []string{"default/a@1", "default/a@2"}, "default/a@2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t)
			mustAdd(t, s, tt.stored...)
			var list []*pod
			for _, spec := range tt.list {
				list = append(list, newPod(t, spec))
			}
			if err := s.Replace(list, "100"); err != nil {
				t.Fatal(err)
			}
			if got := keysOf(s.List()); got != tt.want {
				t.Fatalf("List() = %q, want %q", got, tt.want)
			}
			if got, want := s.Len(), len(s.ListKeys()); got != want {
				t.Fatalf("Len() = %d, but ListKeys has %d", got, want)
			}
		})
	}
}

func TestStore_new_panics_without_a_key_function(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("New(nil, nil) did not panic")
		}
	}()
	store.New[*pod](nil, nil)
}

// TestStore_is_safe_for_concurrent_use has writers and readers race; it proves
// nothing without -race, and with it fails on any unsynchronised access.
func TestStore_is_safe_for_concurrent_use(t *testing.T) {
	s := newStore(t)
	const writers, perWriter = 4, 200
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := 0; i < perWriter; i++ {
				p := &pod{ns: fmt.Sprintf("ns-%d", w), name: fmt.Sprintf("p-%d", i%50), labels: map[string]string{"app": "web"}}
				if err := s.Add(p); err != nil {
					t.Error(err)
					return
				}
				if i%3 == 0 {
					if err := s.Delete(p); err != nil {
						t.Error(err)
						return
					}
				}
			}
		}()
		go func() {
			defer wg.Done()
			for i := 0; i < perWriter; i++ {
				s.List()
				s.GetByKey(fmt.Sprintf("ns-%d/p-%d", w, i%50))
				if _, err := s.ByIndex("app", "web"); err != nil {
					t.Error(err)
					return
				}
				s.ListIndexFuncValues(store.NamespaceIndex)
			}
		}()
	}
	wg.Wait()
	// Each writer's last touch of p-k decides whether it is stored; check the index
	// agrees with the objects, whatever the interleaving was.
	keys, err := s.IndexKeys("app", "web")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sorted(keys), sorted(s.ListKeys()); got != want {
		t.Fatalf("app=web index holds %q, store holds %q", got, want)
	}
}
