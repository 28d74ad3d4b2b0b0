package fifo_test

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/kubewire/kubewire/fifo"
	"github.com/kubewire/kubewire/store"
)

// Pod stands in for kubewire's *apiclient.Object.
type Pod struct{ Namespace, Name, RV string }

func (p *Pod) GetNamespace() string { return p.Namespace }
func (p *Pod) GetName() string      { return p.Name }

func pod(name, rv string) *Pod { return &Pod{Namespace: "default", Name: name, RV: rv} }

// informer is the loop package controller runs: pop, apply to the store, tell the
// handlers (here: print). It drains q and returns.
func informer(q fifo.Queue[*Pod], s *store.Store[*Pod], show func(fifo.Deltas[*Pod], *store.Store[*Pod])) {
	for q.Len() > 0 {
		q.Pop(context.Background(), func(deltas fifo.Deltas[*Pod], initial bool) error {
			for _, d := range deltas {
				if d.Type == fifo.Deleted {
					s.Delete(d.Object)
				} else {
					s.Update(d.Object)
				}
			}
			show(deltas, s)
			return nil
		})
	}
}

// deltasLine prints "Added web-1@1, Updated web-1@2" and marks tombstones.
func deltasLine(deltas fifo.Deltas[*Pod]) string {
	var parts []string
	for _, d := range deltas {
		part := fmt.Sprintf("%s %s@%s", d.Type, d.Object.Name, d.Object.RV)
		if d.Tombstone != nil {
			part += " (final state unknown)"
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, ", ")
}

// storeLine prints the store as {a@1 b@2}.
func storeLine(s *store.Store[*Pod]) string {
	var items []string
	for _, p := range s.List() {
		items = append(items, p.Name+"@"+p.RV)
	}
	slices.Sort(items)
	return "{" + strings.Join(items, " ") + "}"
}

// The core move: the reflector writes, the informer pops one key's deltas at a time,
// oldest first, and applies them to the store the queue consults.
func Example() {
	s := store.New(store.MetaKey[*Pod], nil)
	q := fifo.NewDeltaFIFO(store.MetaKey[*Pod], s)

	q.Replace([]*Pod{pod("web-1", "1")}, "1") // the LIST
	q.Update(pod("web-1", "2"))               // watch events
	q.Add(pod("web-2", "3"))
	q.Delete(pod("web-2", "4"))
	fmt.Println("queued keys:", q.Len(), "synced:", q.HasSynced())

	informer(q, s, func(d fifo.Deltas[*Pod], _ *store.Store[*Pod]) {
		fmt.Printf("%s: %s\n", d[0].Key, deltasLine(d))
	})
	fmt.Println("synced:", q.HasSynced(), "store:", storeLine(s))
	// Output:
	// queued keys: 2 synced: false
	// default/web-1: Replaced web-1@1, Updated web-1@2
	// default/web-2: Added web-2@3, Deleted web-2@4
	// synced: true store: {web-1@2}
}

// A relist that no longer lists some objects, as worked through in the package doc:
// the store holds a, b and c; b's update and d's creation are still queued; the LIST
// returns a@3 and e@1. Both queues make up deletions for b, c and d, but hand them out
// in a different order, and both leave the store equal to the LIST.
func Example_replace() {
	for _, kind := range []string{"DeltaFIFO", "InOrderFIFO"} {
		s := store.New(store.MetaKey[*Pod], nil)
		s.Add(pod("a", "1"))
		s.Add(pod("b", "1"))
		s.Add(pod("c", "1"))
		var q fifo.Queue[*Pod] = fifo.NewDeltaFIFO(store.MetaKey[*Pod], s)
		if kind == "InOrderFIFO" {
			q = fifo.NewInOrderFIFO(store.MetaKey[*Pod], s)
		}
		q.Update(pod("b", "2"))
		q.Add(pod("d", "1"))
		q.Replace([]*Pod{pod("a", "3"), pod("e", "1")}, "50")

		fmt.Println(kind)
		informer(q, s, func(d fifo.Deltas[*Pod], _ *store.Store[*Pod]) {
			fmt.Println("  pop", deltasLine(d))
		})
		fmt.Println("  store", storeLine(s))
	}
	// Output:
	// DeltaFIFO
	//   pop Updated b@2, Deleted b@2 (final state unknown)
	//   pop Added d@1, Deleted d@1 (final state unknown)
	//   pop Replaced a@3
	//   pop Replaced e@1
	//   pop Deleted c@1 (final state unknown)
	//   store {a@3 e@1}
	// InOrderFIFO
	//   pop Updated b@2
	//   pop Added d@1
	//   pop Deleted b@2 (final state unknown)
	//   pop Deleted d@1 (final state unknown)
	//   pop Deleted c@1 (final state unknown)
	//   pop Replaced a@3
	//   pop Replaced e@1
	//   store {a@3 e@1}
}

// The same watch events through both queues, and the store after every pop. With
// DeltaFIFO the store passes through {a@3}, a state the server was never in (b@2
// existed before a reached version 3); with InOrderFIFO every state of the store is the
// server's state at some resourceVersion. This is why client-go's informers moved to
// the in-order FIFO (RealFIFO) in 1.33.
func Example_inOrder() {
	for _, kind := range []string{"DeltaFIFO", "InOrderFIFO"} {
		s := store.New(store.MetaKey[*Pod], nil)
		var q fifo.Queue[*Pod] = fifo.NewDeltaFIFO(store.MetaKey[*Pod], s)
		if kind == "InOrderFIFO" {
			q = fifo.NewInOrderFIFO(store.MetaKey[*Pod], s)
		}
		q.Add(pod("a", "1"))
		q.Add(pod("b", "2"))
		q.Update(pod("a", "3"))

		fmt.Println(kind)
		informer(q, s, func(d fifo.Deltas[*Pod], s *store.Store[*Pod]) {
			fmt.Printf("  pop %-28s store %s\n", deltasLine(d), storeLine(s))
		})
	}
	// Output:
	// DeltaFIFO
	//   pop Added a@1, Updated a@3       store {a@3}
	//   pop Added b@2                    store {a@3 b@2}
	// InOrderFIFO
	//   pop Added a@1                    store {a@1}
	//   pop Added b@2                    store {a@1 b@2}
	//   pop Updated a@3                  store {a@3 b@2}
}

// A handler reads a deletion from a typed Delta: Object is always a *Pod, and the
// tombstone, when there is one, says the final state was not seen. No type switch.
func ExampleDeletedFinalStateUnknown() {
	s := store.New(store.MetaKey[*Pod], nil)
	s.Add(pod("web-1", "7"))
	s.Add(pod("web-2", "7"))
	q := fifo.NewInOrderFIFO(store.MetaKey[*Pod], s)
	q.Delete(pod("web-1", "9")) // the watch saw this one go
	q.Replace([]*Pod{}, "12")   // web-2 went while the watch was down

	onDelete := func(d fifo.Delta[*Pod]) {
		if d.Tombstone != nil {
			fmt.Printf("%s deleted; last seen at rv %s, final state unknown\n", d.Key, d.Object.RV)
			return
		}
		fmt.Printf("%s deleted at rv %s\n", d.Key, d.Object.RV)
	}
	informer(q, s, func(d fifo.Deltas[*Pod], _ *store.Store[*Pod]) { onDelete(d[0]) })
	// Output:
	// default/web-1 deleted at rv 9
	// default/web-2 deleted; last seen at rv 7, final state unknown
}
