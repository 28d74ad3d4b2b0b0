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
	s.inf.labels.share(obj)
	return s.Queue.Add(obj)
}

func (s entrySink) Update(obj *apiclient.Object) error {
	obj, err := s.transform(obj)
	if err != nil {
		return err
	}
	s.inf.labels.share(obj)
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
func (s entrySink) Replace(list []*apiclient.Object, rv string) error {
	if s.inf.transform != nil {
		out := make([]*apiclient.Object, len(list))
		for i, obj := range list {
			var err error
			if out[i], err = s.transform(obj); err != nil {
				return err
			}
		}
		list = out
	}
	for _, obj := range list {
		s.inf.labels.share(obj)
	}
	err := s.Queue.Replace(list, rv)
	s.inf.markSyncedOnce()
	return err
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
