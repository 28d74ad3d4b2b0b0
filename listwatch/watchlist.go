package listwatch

import (
	"time"

	"github.com/kubewire/kubewire/apiclient"
)

// initialEventsEnd annotates the bookmark that ends a streaming list's initial events.
const initialEventsEnd = "k8s.io/initial-events-end"

// collector gathers a streaming list's initial events: the objects in arrival order,
// by key, so that the rare change among them (a MODIFIED or DELETED before the end
// bookmark) replaces or removes the earlier entry instead of duplicating it.
type collector struct {
	items []*apiclient.Object // nil where an object was deleted
	index map[string]int
}

// collect takes one event of a streaming list and reports whether it was the end.
func (r *Reflector) collect(c *collector, ev apiclient.Event, now time.Time) bool {
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
		return end
	}
	r.noteVersion("", true, 1, now)
	return false
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
