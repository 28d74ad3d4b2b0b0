package informer

import (
	"fmt"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/fifo"
)

// entrySink is the FIFO as the source (the Reflector) sees it: every object that
// enters — a watch's add, update or delete, every object of a list — goes through
// Options.Transform first (and an object to be cached then shares its labels,
// labels.go), on the source's goroutine and outside the FIFO's lock,
// so the FIFO, the store and the handlers only ever hold transformed objects. What
// the FIFO makes up itself never comes this way and is not transformed again: a
// relist's deletes and a resync's Sync deltas carry the stored object, which
// already was.
//
// A Transform that fails refuses the write: the Reflector logs a refused watch
// event and goes on, and backs off and lists again after a refused Replace, so a
// list with one object that cannot be transformed never reaches the FIFO.
type entrySink struct {
	fifo.Queue[*apiclient.Object]
	inf *Informer
}

func (s entrySink) Add(obj *apiclient.Object) error {
	obj, err := s.transform(obj)
	if err != nil {
		return err
	}
	s.inf.keep(obj)
	return s.Queue.Add(obj)
}

func (s entrySink) Update(obj *apiclient.Object) error {
	obj, err := s.transform(obj)
	if err != nil {
		return err
	}
	s.inf.keep(obj)
	return s.Queue.Update(obj)
}

func (s entrySink) Delete(obj *apiclient.Object) error {
	obj, err := s.transform(obj)
	if err != nil {
		return err
	}
	return s.Queue.Delete(obj)
}

// Replace transforms the whole list before the FIFO sees any of it. It also marks
// the informer synced: a first list that finds nothing leaves the FIFO synced with
// nothing to pop, so no Pop would ever notice.
//
// An object Held handed back is the store's own, transformed and shared already:
// it goes to the FIFO as it is (writing to it now would race its readers).
func (s entrySink) Replace(list []*apiclient.Object, rv string) error {
	held := s.inf.held
	s.inf.held = nil // whatever happens, this list is over
	if s.inf.transform != nil {
		out := make([]*apiclient.Object, len(list))
		for i, obj := range list {
			if _, ok := held[obj]; ok {
				out[i] = obj
				continue
			}
			var err error
			if out[i], err = s.transform(obj); err != nil {
				return err
			}
		}
		list = out
	}
	for _, obj := range list {
		if _, ok := held[obj]; !ok {
			s.inf.keep(obj)
		}
	}
	err := s.Queue.Replace(list, rv)
	s.inf.markSyncedOnce()
	if err == nil {
		err = s.Bookmark(rv) // the store stands at rv once the list is popped
	}
	return err
}

// Held is the cached object of obj's key when it is at obj's resourceVersion
// (listwatch.Holder): a relist keeps it instead of the copy it just decoded. An
// empty cache (the first list) costs nothing, not even the key. It
// remembers what it handed back, for Replace; a list that fails is never handed
// over, and the next list's Replace forgets its objects with its own.
func (s entrySink) Held(obj *apiclient.Object) (*apiclient.Object, bool) {
	if s.inf.store.Len() == 0 {
		return nil, false
	}
	o, ok := s.inf.store.GetByKey(obj.Key())
	if !ok || o.Metadata.ResourceVersion != obj.Metadata.ResourceVersion {
		return nil, false
	}
	if s.inf.held == nil {
		s.inf.held = map[*apiclient.Object]struct{}{}
	}
	s.inf.held[o] = struct{}{}
	return o, true
}

// Bookmark queues the version the watch has reached (listwatch.Bookmarker), for
// StoreResourceVersion, when the FIFO keeps order across keys (InOrderFIFO).
// DeltaFIFO has no place for it.
func (s entrySink) Bookmark(rv string) error {
	if b, ok := s.Queue.(interface{ Bookmark(string) error }); ok && rv != "" {
		return b.Bookmark(rv)
	}
	return nil
}

// Pack packs an object of a list as it is decoded (listwatch.Packer), before
// Transform: packing changes what obj holds, not what it reads. keep leaves it
// packed then.
func (s entrySink) Pack(obj *apiclient.Object) { s.inf.packer.pack(obj) }

// keep readies obj, transformed, to be cached: it shares its labels
// (labels.go) and is packed (pack.go). obj is not shared yet.
func (inf *Informer) keep(obj *apiclient.Object) {
	inf.labels.share(obj)
	inf.packer.pack(obj)
}

// transform is Options.Transform, or nothing when it is unset. A Transform that
// returns nil and no error is refused too: the FIFO could not key it.
func (s entrySink) transform(obj *apiclient.Object) (*apiclient.Object, error) {
	if s.inf.transform == nil {
		return obj, nil
	}
	out, err := s.inf.transform(obj)
	switch {
	case err != nil:
		return nil, fmt.Errorf("transform %s: %w", obj.Key(), err)
	case out == nil:
		return nil, fmt.Errorf("transform %s: returned no object", obj.Key())
	}
	return out, nil
}
