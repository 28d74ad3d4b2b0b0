package fifo_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/fifo"
)

// item is the small object the tests queue: a key and a resourceVersion.
type item struct{ ns, name, rv string }

func (i *item) GetNamespace() string { return i.ns }
func (i *item) GetName() string      { return i.name }
func (i *item) String() string       { return keyOf(i) + "@" + i.rv }

var errNoName = errors.New("no name")

// itemKey is the tests' key function: "namespace/name", failing on a nameless item.
// (store.MetaKey does the same; fifo's own tests do not lean on package store.)
func itemKey(i *item) (string, error) {
	if i.name == "" {
		return "", errNoName
	}
	return keyOf(i), nil
}

func keyOf(i *item) string {
	if i.ns == "" {
		return i.name
	}
	return i.ns + "/" + i.name
}

// newItem parses "ns/name@rv".
func newItem(t testing.TB, spec string) *item {
	t.Helper()
	key, rv, ok := strings.Cut(spec, "@")
	if !ok {
		t.Fatalf("newItem(%q): want ns/name@rv", spec)
	}
	ns, name, namespaced := strings.Cut(key, "/")
	if !namespaced {
		ns, name = "", key
	}
	return &item{ns: ns, name: name, rv: rv}
}

// known is the store behind the queue, as small as it can be: a map. Its ListKeys
// comes out in Go's random map order, so a queue that does not sort what it finds
// there fails the ordering tests.
type known map[string]*item

func (k known) ListKeys() []string {
	keys := make([]string, 0, len(k))
	for key := range k {
		keys = append(keys, key)
	}
	return keys
}

func (k known) GetByKey(key string) (*item, bool) {
	i, ok := k[key]
	return i, ok
}

// apply does to the store what the informer does with popped deltas.
func (k known) apply(deltas fifo.Deltas[*item]) {
	for _, d := range deltas {
		if d.Type == fifo.Deleted {
			delete(k, d.Key)
		} else {
			k[d.Key] = d.Object
		}
	}
}

// newKnown makes a store holding the items of specs.
func newKnown(t testing.TB, specs ...string) known {
	t.Helper()
	k := known{}
	for _, spec := range specs {
		i := newItem(t, spec)
		k[keyOf(i)] = i
	}
	return k
}

// queueKind builds one of the two FIFOs over a store, so that tests of what both
// promise run on both.
type queueKind struct {
	name string
	new  func(known fifo.KnownObjects[*item]) fifo.Queue[*item]
}

var queueKinds = []queueKind{
	{"DeltaFIFO", func(k fifo.KnownObjects[*item]) fifo.Queue[*item] { return fifo.NewDeltaFIFO(itemKey, k) }},
	{"InOrderFIFO", func(k fifo.KnownObjects[*item]) fifo.Queue[*item] { return fifo.NewInOrderFIFO(itemKey, k) }},
}

// script runs steps against q, failing the test on any error. A step is
// "add ns/name@rv", "update …", "delete …", "replace [ns/name@rv …]" or "resync".
func script(t testing.TB, q fifo.Queue[*item], steps ...string) {
	t.Helper()
	for _, step := range steps {
		verb, args, _ := strings.Cut(step, " ")
		var err error
		switch verb {
		case "add":
			err = q.Add(newItem(t, args))
		case "update":
			err = q.Update(newItem(t, args))
		case "delete":
			err = q.Delete(newItem(t, args))
		case "replace":
			var list []*item
			for _, spec := range strings.Fields(args) {
				list = append(list, newItem(t, spec))
			}
			err = q.Replace(list, "rv")
		case "resync":
			err = q.Resync()
		default:
			t.Fatalf("script: unknown step %q", step)
		}
		if err != nil {
			t.Fatalf("script: %s: %v", step, err)
		}
	}
}

// drain pops until the queue is empty, applying every pop to k like an informer,
// and returns one line per pop.
func drain(t testing.TB, q fifo.Queue[*item], k known) []string {
	t.Helper()
	var lines []string
	for q.Len() > 0 {
		err := q.Pop(context.Background(), func(d fifo.Deltas[*item], _ bool) error {
			lines = append(lines, format(d))
			k.apply(d)
			return nil
		})
		if err != nil {
			t.Fatalf("Pop: %v", err)
		}
	}
	return lines
}

// format writes deltas as "Updated default/b@2, Deleted default/b@2 (final state unknown)".
func format(deltas fifo.Deltas[*item]) string {
	parts := make([]string, len(deltas))
	for i, d := range deltas {
		parts[i] = d.Type.String() + " " + d.Object.String()
		if d.Tombstone != nil {
			parts[i] += " (final state unknown)"
		}
	}
	return strings.Join(parts, ", ")
}

// equalLines fails the test unless got and want are the same lines.
func equalLines(t testing.TB, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("%s:\ngot:\n\t%s\nwant:\n\t%s", what, strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}
