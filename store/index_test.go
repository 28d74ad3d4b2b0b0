package store_test

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/store"
)

func TestIndex_queries(t *testing.T) {
	stored := []string{
		"default/web-1@1 app=web tier=front",
		"default/web-2@1 app=web tier=front",
		"default/db-1@1 app=db tier=back",
		"prod/web-1@1 app=web",
		"node-1@1",
	}
	tests := []struct {
		name, index, value string
		want               string
	}{
		{"namespace_index_finds_the_objects_of_one_namespace", store.NamespaceIndex, "default", "default/db-1@1 default/web-1@1 default/web-2@1"},
		{"cluster_scoped_objects_are_in_no_namespace_bucket", store.NamespaceIndex, "", ""},
		{"custom_index_spans_namespaces", "app", "web", "default/web-1@1 default/web-2@1 prod/web-1@1"},
		{"multi_valued_index_files_an_object_under_each_value", "label", "tier=back", "default/db-1@1"},
		{"unknown_value_finds_nothing", "app", "cache", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t)
			mustAdd(t, s, stored...)
			objs, err := s.ByIndex(tt.index, tt.value)
			if err != nil {
				t.Fatal(err)
			}
			if got := keysOf(objs); got != tt.want {
				t.Fatalf("ByIndex(%q, %q) = %q, want %q", tt.index, tt.value, got, tt.want)
			}
			keys, err := s.IndexKeys(tt.index, tt.value)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := len(keys), len(objs); got != want {
				t.Fatalf("IndexKeys found %d keys, ByIndex %d objects", got, want)
			}
		})
	}
}

func TestIndex_list_index_func_values_names_every_non_empty_value(t *testing.T) {
	s := newStore(t)
	mustAdd(t, s, "default/a@1 app=web", "prod/b@1 app=db", "node-1@1")
	if got, want := sorted(s.ListIndexFuncValues(store.NamespaceIndex)), "default prod"; got != want {
		t.Fatalf("namespace values = %q, want %q", got, want)
	}
	if err := s.Delete(newPod(t, "prod/b@1")); err != nil {
		t.Fatal(err)
	}
	if got, want := sorted(s.ListIndexFuncValues(store.NamespaceIndex)), "default"; got != want {
		t.Fatalf("namespace values after emptying prod = %q, want %q", got, want)
	}
	if got := s.ListIndexFuncValues("nope"); got != nil {
		t.Fatalf("values of an unknown index = %q, want nil", got)
	}
}

func TestIndex_is_kept_right_by_writes(t *testing.T) {
	tests := []struct {
		name  string
		write func(t *testing.T, s *store.Store[*pod])
		app   string // query ByIndex("app", app)
		want  string
	}{
		{"update_moves_the_key_to_its_new_value", func(t *testing.T, s *store.Store[*pod]) {
			mustAdd(t, s, "default/a@2 app=db")
		}, "web", "default/b@1"},
		{"update_files_the_key_under_its_new_value", func(t *testing.T, s *store.Store[*pod]) {
			mustAdd(t, s, "default/a@2 app=db")
		}, "db", "default/a@2"},
		{"update_keeping_the_value_keeps_the_key_there", func(t *testing.T, s *store.Store[*pod]) {
			mustAdd(t, s, "default/a@2 app=web")
		}, "web", "default/a@2 default/b@1"},
		{"delete_takes_the_key_out", func(t *testing.T, s *store.Store[*pod]) {
			if err := s.Delete(newPod(t, "default/a@1")); err != nil {
				t.Fatal(err)
			}
		}, "web", "default/b@1"},
		{"update_dropping_the_label_takes_the_key_out", func(t *testing.T, s *store.Store[*pod]) {
			mustAdd(t, s, "default/b@2")
		}, "web", "default/a@1"},
		{"replace_rebuilds_the_index", func(t *testing.T, s *store.Store[*pod]) {
			if err := s.Replace([]*pod{newPod(t, "default/c@1 app=web")}, "5"); err != nil {
				t.Fatal(err)
			}
		}, "web", "default/c@1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t)
			mustAdd(t, s, "default/a@1 app=web", "default/b@1 app=web")
			tt.write(t, s)
			objs, err := s.ByIndex("app", tt.app)
			if err != nil {
				t.Fatal(err)
			}
			if got := keysOf(objs); got != tt.want {
				t.Fatalf("ByIndex(app, %q) = %q, want %q", tt.app, got, tt.want)
			}
		})
	}
}

func TestIndex_failing_index_function_refuses_the_write_and_changes_nothing(t *testing.T) {
	tests := []struct {
		name  string
		write func(t *testing.T, s *store.Store[*pod]) error
	}{
		{"add", func(t *testing.T, s *store.Store[*pod]) error { return s.Add(newPod(t, "default/new@1 bad=true")) }},
		{"update", func(t *testing.T, s *store.Store[*pod]) error { return s.Update(newPod(t, "default/a@2 bad=true")) }},
		{"replace", func(t *testing.T, s *store.Store[*pod]) error {
			return s.Replace([]*pod{newPod(t, "default/c@1"), newPod(t, "default/d@1 bad=true")}, "7")
		}},
		{"add_indexers", func(t *testing.T, s *store.Store[*pod]) error {
			return s.AddIndexers(store.Indexers[*pod]{"fussy": func(*pod) ([]string, error) { return nil, errUnindexable }})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t)
			mustAdd(t, s, "default/a@1 app=web", "default/b@1 app=db")
			if err := tt.write(t, s); !errors.Is(err, errUnindexable) {
				t.Fatalf("write error = %v, want errUnindexable", err)
			}
			if got, want := keysOf(s.List()), "default/a@1 default/b@1"; got != want {
				t.Fatalf("List() = %q, want %q", got, want)
			}
			web, err := s.ByIndex("app", "web")
			if err != nil {
				t.Fatal(err)
			}
			if got, want := keysOf(web), "default/a@1"; got != want {
				t.Fatalf("ByIndex(app, web) = %q, want %q", got, want)
			}
			if _, err := s.ByIndex("fussy", ""); !errors.Is(err, store.ErrNoIndex) {
				t.Fatalf("a failed AddIndexers left index %q behind (err %v)", "fussy", err)
			}
		})
	}
}

func TestIndex_impure_index_function_cannot_block_a_delete_or_an_update(t *testing.T) {
	tests := []struct {
		name  string
		write func(t *testing.T, s *store.Store[*pod]) error
		want  string // values of the "v" index afterwards
	}{
		{"delete_still_removes_the_key", func(t *testing.T, s *store.Store[*pod]) error {
			return s.Delete(newPod(t, "default/a@9"))
		}, "b@1"},
		{"update_still_moves_the_key", func(t *testing.T, s *store.Store[*pod]) error {
			return s.Update(newPod(t, "default/a@2"))
		}, "a@2 b@1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// failOn is an object the index function refuses: once it is set to the
			// stored copy of a, the store cannot recompute where a was filed.
			var failOn *pod
			byVersion := func(p *pod) ([]string, error) {
				if p == failOn {
					return nil, errUnindexable
				}
				return []string{p.name + "@" + p.rv}, nil
			}
			s := store.New(store.MetaKey[*pod], store.Indexers[*pod]{"v": byVersion})
			a := newPod(t, "default/a@1")
			if err := s.Add(a); err != nil {
				t.Fatal(err)
			}
			mustAdd(t, s, "default/b@1")
			failOn = a
			if err := tt.write(t, s); err != nil {
				t.Fatalf("write: %v", err)
			}
			if got := sorted(s.ListIndexFuncValues("v")); got != tt.want {
				t.Fatalf("index values = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestIndex_add_indexers_to_a_filled_store_indexes_what_is_there(t *testing.T) {
	s := store.New(store.MetaKey[*pod], nil)
	mustAdd(t, s, "default/a@1 app=web", "prod/b@1 app=web")
	if err := s.AddIndexers(store.Indexers[*pod]{"app": byApp}); err != nil {
		t.Fatal(err)
	}
	web, err := s.ByIndex("app", "web")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := keysOf(web), "default/a@1 prod/b@1"; got != want {
		t.Fatalf("ByIndex(app, web) = %q, want %q", got, want)
	}
	if err := s.AddIndexers(store.Indexers[*pod]{"app": byApp}); err == nil {
		t.Fatal("adding index \"app\" twice succeeded")
	}
}

func TestIndex_unknown_index_is_ErrNoIndex(t *testing.T) {
	s := newStore(t)
	if _, err := s.ByIndex("nope", "x"); !errors.Is(err, store.ErrNoIndex) {
		t.Fatalf("ByIndex error = %v, want ErrNoIndex", err)
	}
	if _, err := s.IndexKeys("nope", "x"); !errors.Is(err, store.ErrNoIndex) {
		t.Fatalf("IndexKeys error = %v, want ErrNoIndex", err)
	}
}

// IndexSizes counts each index's values (what the live page shows of a store):
// a value whose last object went is no longer counted.
func TestIndex_sizes_count_each_index_s_values(t *testing.T) {
	s := newStore(t)
	mustAdd(t, s, "default/web-1@1 app=web tier=front", "prod/db-1@1 app=db tier=back", "node-1@1")
	want := "app=2 label=4 namespace=2"
	if got := sizes(s); got != want {
		t.Fatalf("IndexSizes = %s, want %s", got, want)
	}
	s.DeleteKey("prod/db-1")
	if got, want := sizes(s), "app=1 label=2 namespace=1"; got != want {
		t.Fatalf("after deleting prod/db-1: IndexSizes = %s, want %s", got, want)
	}
}

func sizes(s *store.Store[*pod]) string {
	var out []string
	for _, ix := range s.IndexSizes() {
		out = append(out, fmt.Sprintf("%s=%d", ix.Name, ix.Values))
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}
