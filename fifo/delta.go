package fifo

import "fmt"

// DeltaType says what happened to an object.
type DeltaType uint8

const (
	// Added: the watch reported the object ADDED.
	Added DeltaType = iota + 1
	// Updated: the watch reported the object MODIFIED.
	Updated
	// Deleted: the watch reported the object DELETED, or a relist no longer lists it;
	// in the second case the Delta carries a Tombstone.
	Deleted
	// Replaced: a LIST (Replace) listed the object. It may or may not have changed
	// since the informer last saw it; the informer compares to find out.
	Replaced
	// Sync: Resync put the stored object back on the queue so that handlers see it
	// again. Nothing changed on the server.
	Sync
	// Bookmark: no object changed, but everything the server said up to
	// ResourceVersion has been queued before it (a watch's BOOKMARK, or the end of
	// a list). Key and Object are empty. Only InOrderFIFO.Bookmark queues one.
	Bookmark
)

func (t DeltaType) String() string {
	switch t {
	case Added:
		return "Added"
	case Updated:
		return "Updated"
	case Deleted:
		return "Deleted"
	case Replaced:
		return "Replaced"
	case Sync:
		return "Sync"
	case Bookmark:
		return "Bookmark"
	}
	return fmt.Sprintf("DeltaType(%d)", uint8(t))
}

// Delta is one thing that happened to one object: the unit both FIFOs queue. The
// informer applies it to the store and turns it into a handler call.
//
// A Delta is plain data; its zero value means nothing and is never queued.
type Delta[T any] struct {
	Type DeltaType
	// Key is the object's key, "namespace/name" (or "name"), as the FIFO's key function
	// made it. Always set, so nobody downstream has to key the object again.
	Key string
	// Object is the object this delta is about, always a T: on Added, Updated,
	// Replaced and Sync the new state; on Deleted the last state known. When Tombstone
	// is set, Object is Tombstone.Obj.
	Object T
	// Tombstone is set only on a Deleted delta that a FIFO made up during Replace,
	// because the relist no longer lists an object it knew: the object was deleted
	// while the watch was down and its final state is unknown. Handlers that care
	// (say, to release what the object held) read that Object may be stale; handlers
	// that don't can ignore the field. A Deleted delta that came from the watch has
	// Tombstone == nil.
	Tombstone *DeletedFinalStateUnknown[T]
	// ResourceVersion is set only on a Bookmark delta: the version the queue has
	// caught up to once it is popped.
	ResourceVersion string
}

// String formats the delta as it appears in traces: "Added default/web-1", or
// "Deleted default/web-2 (final state unknown)" for a tombstone.
func (d Delta[T]) String() string {
	if d.Tombstone != nil {
		return d.Type.String() + " " + d.Key + " (final state unknown)"
	}
	return d.Type.String() + " " + d.Key
}

// Deltas is what one Pop hands over, oldest first. From DeltaFIFO it is everything
// that happened to one key while the key waited in the queue; from InOrderFIFO it is
// always exactly one delta. Pop never hands over an empty Deltas.
type Deltas[T any] []Delta[T]

// Oldest returns the first delta, or the zero Delta if d is empty.
func (d Deltas[T]) Oldest() Delta[T] {
	if len(d) == 0 {
		return Delta[T]{}
	}
	return d[0]
}

// Newest returns the last delta, or the zero Delta if d is empty. After a Pop, its
// Object is the state the store should end up with (unless its Type is Deleted).
func (d Deltas[T]) Newest() Delta[T] {
	if len(d) == 0 {
		return Delta[T]{}
	}
	return d[len(d)-1]
}

// DeletedFinalStateUnknown is the tombstone: it stands for an object that a relist no
// longer lists, so it must have been deleted while the watch was down, and nobody saw
// its final state. Obj is the last state this process knew, from the queue if the key
// was queued, else from the store; it may be stale. Key is the object's key.
//
// In client-go this type travels as interface{} in place of the object, and a
// DeleteFunc that type-asserts obj.(*v1.Pod) panics on it. Here it is a typed field of
// Delta, next to an Object that is always a T.
type DeletedFinalStateUnknown[T any] struct {
	Key string
	Obj T
}

// TombstoneKey returns t.Key. It makes a DeletedFinalStateUnknown a store.Tombstone,
// so store.DeletionHandlingKey recognises it without store importing fifo.
func (t DeletedFinalStateUnknown[T]) TombstoneKey() string { return t.Key }
