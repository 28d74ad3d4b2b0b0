package listwatch

import (
	"fmt"
	"time"

	"github.com/kubewire/kubewire/apiclient"
)

// initialEventsEnd annotates the bookmark that ends a streaming list's initial events.
const initialEventsEnd = "k8s.io/initial-events-end"

// collector gathers a streaming list's initial events: the objects in arrival order,
// by key, so that the rare change among them (a MODIFIED or DELETED before the end
// bookmark) replaces or removes the earlier entry instead of duplicating it.
//
// Its guard bounds the initial events as a LIST is bounded (apiclient.ListLimits):
// the objects, and the bytes of the stream read so far.
type collector struct {
	items []*apiclient.Object // nil where an object was deleted
	index map[string]int
	guard *apiclient.PageGuard
	read  int64 // the stream's bytes the guard has been told of
}

// collect takes one event of a streaming list and reports whether it was the end;
// offset is how far the stream has been read (apiclient.Watcher.Offset). An error
// is a list over its limits: it ends the streaming list, with nothing handed on.
func (r *Reflector) collect(c *collector, ev apiclient.Event, offset int64, now time.Time) (bool, error) {
	err := c.guard.Bytes(offset - c.read)
	c.read = offset
	if err == nil && ev.Type == apiclient.Added {
		err = c.guard.Items(1)
	}
	if err != nil {
		return false, fmt.Errorf("streaming list %s: %w", c.guard.Resource, err)
	}
	rv := ev.Object.Metadata.ResourceVersion
	switch ev.Type {
	case apiclient.Added, apiclient.Modified:
		key := ev.Object.Key()
		o := r.held(ev.Object)
		if i, ok := c.index[key]; ok {
			c.items[i] = o
		} else {
			c.index[key] = len(c.items)
			c.items = append(c.items, o)
		}
		r.step(Step{Op: OpItem, Key: key, ResourceVersion: rv})
	case apiclient.Deleted:
		if i, ok := c.index[ev.Object.Key()]; ok {
			c.items[i] = nil
			delete(c.index, ev.Object.Key())
		}
	case apiclient.Bookmark:
		end := ev.Object.Metadata.Annotations[initialEventsEnd] == "true"
		r.step(Step{Op: OpBookmark, ResourceVersion: rv, Initial: end})
		if rv != "" {
			r.rv = rv
		}
		r.noteVersion(rv, true, 0, now)
		return end, nil
	}
	r.noteVersion("", true, 1, now)
	return false, nil
}

// list returns the collected objects in arrival order.
func (c *collector) list() []*apiclient.Object {
	out := make([]*apiclient.Object, 0, len(c.index))
	for _, o := range c.items {
		if o != nil {
			out = append(out, o)
		}
	}
	return out
}
