package store_test

import (
	"errors"
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"testing"

	"github.com/kubewire/kubewire/store"
)

// TestStore_matches_a_reference_model runs random writes against the store and against
// the simplest thing that could be right, a plain map, and after every step checks that
// the store's objects and all three indexes agree with what scanning the map says.
// Seeds are fixed, so a failure names a seed and a step that replay it exactly.
func TestStore_matches_a_reference_model(t *testing.T) {
	for seed := int64(1); seed <= 20; seed++ {
		t.Run(fmt.Sprintf("seed_%d", seed), func(t *testing.T) {
			runStoreModel(t, rand.New(rand.NewSource(seed)), 400)
		})
	}
}

func runStoreModel(t *testing.T, rng *rand.Rand, steps int) {
	s := newStore(t)
	model := map[string]*pod{}
	indexers := map[string]store.IndexFunc[*pod]{
		store.NamespaceIndex: store.IndexByNamespace[*pod],
		"app":                byApp,
		"label":              byLabel,
	}
	version := 0
	randomPod := func() *pod {
		version++
		p := &pod{
			ns:     []string{"", "default", "prod"}[rng.Intn(3)],
			name:   fmt.Sprintf("p%d", rng.Intn(8)),
			rv:     fmt.Sprint(version),
			labels: map[string]string{},
		}
		if rng.Intn(4) > 0 {
			p.labels["app"] = []string{"web", "db"}[rng.Intn(2)]
		}
		if rng.Intn(3) == 0 {
			p.labels["tier"] = []string{"front", "back"}[rng.Intn(2)]
		}
		if rng.Intn(15) == 0 {
			p.labels["bad"] = "true" // byApp refuses it: the write must fail and change nothing
		}
		return p
	}
	indexable := func(p *pod) bool { return p.labels["bad"] != "true" }

	for step := 0; step < steps; step++ {
		var op string
		var err, wantErr error
		switch n := rng.Intn(8); {
		case n < 4:
			p := randomPod()
			op = "Add " + p.rv
			if indexable(p) {
				model[mustKey(t, p)] = p
			} else {
				wantErr = errUnindexable
			}
			if rng.Intn(2) == 0 {
				err = s.Add(p)
			} else {
				err = s.Update(p)
			}
		case n < 7:
			p := randomPod() // a fresh version: Delete must go by key alone
			op = "Delete " + mustKey(t, p)
			delete(model, mustKey(t, p))
			err = s.Delete(p)
		default:
			var list []*pod
			next := map[string]*pod{}
			for i := rng.Intn(10); i > 0; i-- {
				p := randomPod()
				list = append(list, p)
				next[mustKey(t, p)] = p
			}
			// Only the objects that survive (the last of each key) are indexed, so an
			// unindexable pod shadowed by a later one with its key does no harm.
			ok := true
			for _, p := range next {
				ok = ok && indexable(p)
			}
			op = fmt.Sprintf("Replace %d", len(list))
			if ok {
				model = next
			} else {
				wantErr = errUnindexable
			}
			err = s.Replace(list, fmt.Sprint(version))
		}
		if !errors.Is(err, wantErr) {
			t.Fatalf("step %d %s: error = %v, want %v", step, op, err, wantErr)
		}
		checkStoreAgainstModel(t, fmt.Sprintf("step %d %s", step, op), s, model, indexers)
	}
}

// checkStoreAgainstModel compares everything a reader can observe.
func checkStoreAgainstModel(t *testing.T, where string, s *store.Store[*pod], model map[string]*pod, indexers map[string]store.IndexFunc[*pod]) {
	t.Helper()
	if got, want := sorted(s.ListKeys()), sorted(slices.Collect(maps.Keys(model))); got != want {
		t.Fatalf("%s: ListKeys = %q, want %q", where, got, want)
	}
	if got, want := s.Len(), len(model); got != want {
		t.Fatalf("%s: Len = %d, want %d", where, got, want)
	}
	for key, want := range model {
		if got, ok := s.GetByKey(key); !ok || got != want {
			t.Fatalf("%s: GetByKey(%q) = %v, %v; want %v", where, key, got, ok, want)
		}
	}
	for name, fn := range indexers {
		// The model index: scan every object, file its key under each value.
		wantIndex := map[string][]string{}
		for key, p := range model {
			values, err := fn(p)
			if err != nil {
				t.Fatalf("%s: model holds an unindexable pod %s", where, key)
			}
			for _, v := range values {
				wantIndex[v] = append(wantIndex[v], key)
			}
		}
		if got, want := sorted(s.ListIndexFuncValues(name)), sorted(slices.Collect(maps.Keys(wantIndex))); got != want {
			t.Fatalf("%s: ListIndexFuncValues(%q) = %q, want %q", where, name, got, want)
		}
		for value, keys := range wantIndex {
			gotKeys, err := s.IndexKeys(name, value)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := sorted(gotKeys), sorted(keys); got != want {
				t.Fatalf("%s: IndexKeys(%q, %q) = %q, want %q", where, name, value, got, want)
			}
		}
	}
}

func mustKey(t *testing.T, p *pod) string {
	t.Helper()
	key, err := store.MetaKey(p)
	if err != nil {
		t.Fatal(err)
	}
	return key
}
