package store_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/store"
)

// pod is the small object the tests store: just enough to be keyed and indexed.
type pod struct {
	ns, name, rv string
	labels       map[string]string
}

func (p *pod) GetNamespace() string { return p.ns }
func (p *pod) GetName() string      { return p.name }

// newPod parses "ns/name@rv app=web tier=db": the key, the version, then labels.
func newPod(t testing.TB, spec string) *pod {
	t.Helper()
	fields := strings.Fields(spec)
	if len(fields) == 0 {
		t.Fatalf("newPod: empty spec")
	}
	keyRV, rv, _ := strings.Cut(fields[0], "@")
	ns, name, err := store.SplitKey(keyRV)
	if err != nil {
		t.Fatalf("newPod(%q): %v", spec, err)
	}
	p := &pod{ns: ns, name: name, rv: rv, labels: map[string]string{}}
	for _, kv := range fields[1:] {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			t.Fatalf("newPod(%q): label %q is not k=v", spec, kv)
		}
		p.labels[k] = v
	}
	return p
}

var errUnindexable = errors.New("unindexable")

// byApp files a pod under its "app" label and refuses pods labelled bad=true: the
// index function that fails, which client-go would panic on.
func byApp(p *pod) ([]string, error) {
	if p.labels["bad"] == "true" {
		return nil, errUnindexable
	}
	if app, ok := p.labels["app"]; ok {
		return []string{app}, nil
	}
	return nil, nil
}

// byLabel files a pod under every "k=v" of its labels: a multi-valued index.
func byLabel(p *pod) ([]string, error) {
	var values []string
	for k, v := range p.labels {
		values = append(values, k+"="+v)
	}
	return values, nil
}

// newStore returns a store of pods with the namespace, app and label indexes.
func newStore(t testing.TB) *store.Store[*pod] {
	t.Helper()
	return store.New(store.MetaKey[*pod], store.Indexers[*pod]{
		store.NamespaceIndex: store.IndexByNamespace[*pod],
		"app":                byApp,
		"label":              byLabel,
	})
}

// mustAdd adds pods made from specs and fails the test on any error.
func mustAdd(t testing.TB, s *store.Store[*pod], specs ...string) {
	t.Helper()
	for _, spec := range specs {
		if err := s.Add(newPod(t, spec)); err != nil {
			t.Fatalf("Add(%q): %v", spec, err)
		}
	}
}

// sorted returns a sorted copy, so that unordered results compare as strings.
func sorted(s []string) string {
	c := slices.Clone(s)
	slices.Sort(c)
	return strings.Join(c, " ")
}

// keysOf returns the sorted "ns/name@rv" of pods.
func keysOf(pods []*pod) string {
	var keys []string
	for _, p := range pods {
		key, _ := store.MetaKey(p)
		keys = append(keys, key+"@"+p.rv)
	}
	return sorted(keys)
}
