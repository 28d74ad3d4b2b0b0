package store_test

import (
	"errors"
	"fmt"
	"slices"

	"github.com/kubewire/kubewire/store"
)

// Pod stands in for kubewire's *apiclient.Object: anything with a namespace and a name.
type Pod struct {
	Namespace, Name, Phase string
	Node                   string
}

func (p *Pod) GetNamespace() string { return p.Namespace }
func (p *Pod) GetName() string      { return p.Name }

// The core move: objects go in under namespace/name and come back by key, by listing,
// or through an index.
func Example() {
	pods := store.New(store.MetaKey[*Pod], store.Indexers[*Pod]{
		store.NamespaceIndex: store.IndexByNamespace[*Pod],
	})
	pods.Add(&Pod{Namespace: "default", Name: "web-1", Phase: "Pending"})
	pods.Add(&Pod{Namespace: "default", Name: "web-2", Phase: "Running"})
	pods.Add(&Pod{Namespace: "kube-system", Name: "coredns", Phase: "Running"})
	pods.Update(&Pod{Namespace: "default", Name: "web-1", Phase: "Running"})
	pods.Delete(&Pod{Namespace: "default", Name: "web-2"})

	p, ok := pods.GetByKey("default/web-1")
	fmt.Println("default/web-1:", p.Phase, ok)

	keys := pods.ListKeys()
	slices.Sort(keys) // the store keeps no order
	fmt.Println("keys:", keys)

	inDefault, _ := pods.IndexKeys(store.NamespaceIndex, "default")
	fmt.Println("in default:", inDefault)
	// Output:
	// default/web-1: Running true
	// keys: [default/web-1 kube-system/coredns]
	// in default: [default/web-1]
}

// A custom index answers "which pods run on node n?" without a scan. An index function
// may fail; the write is then refused and the store does not change.
func ExampleStore_ByIndex() {
	byNode := func(p *Pod) ([]string, error) {
		if p.Phase == "Running" && p.Node == "" {
			return nil, errors.New("running pod without a node")
		}
		if p.Node == "" {
			return nil, nil // not scheduled yet: in no bucket
		}
		return []string{p.Node}, nil
	}
	pods := store.New(store.MetaKey[*Pod], store.Indexers[*Pod]{"node": byNode})
	pods.Add(&Pod{Namespace: "default", Name: "web-1", Phase: "Running", Node: "n1"})
	pods.Add(&Pod{Namespace: "default", Name: "web-2", Phase: "Pending"})

	err := pods.Update(&Pod{Namespace: "default", Name: "web-2", Phase: "Running"})
	fmt.Println("update:", err)

	onN1, _ := pods.ByIndex("node", "n1")
	for _, p := range onN1 {
		fmt.Println("on n1:", p.Name)
	}
	p, _ := pods.GetByKey("default/web-2")
	fmt.Println("web-2 is still", p.Phase)
	// Output:
	// update: store: index "node" of default/web-2: running pod without a node
	// on n1: web-1
	// web-2 is still Pending
}

func ExampleSplitKey() {
	for _, key := range []string{"default/web-1", "node-1", "a/b/c"} {
		ns, name, err := store.SplitKey(key)
		fmt.Printf("%q → namespace %q, name %q, err %v\n", key, ns, name, err)
	}
	// Output:
	// "default/web-1" → namespace "default", name "web-1", err <nil>
	// "node-1" → namespace "", name "node-1", err <nil>
	// "a/b/c" → namespace "", name "", err split key "a/b/c": want namespace/name or name
}
