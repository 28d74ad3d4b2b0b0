package listwatch

import (
	"errors"
	"fmt"
	"time"

	"github.com/kubewire/kubewire/apiclient"
)

// initialEventsEnd annotates the bookmark that ends a streaming list's initial events.
const initialEventsEnd = "k8s.io/initial-events-end"

// collector gathers a streaming list's initial events in arrival order. A server
// that serves streaming lists sends the state as ADDED events, one per object,
// then the end bookmark, and only after it the changes (KEP-3157's contract, as
// the API reference states it); so the collector needs no index by key, and a
// change before the end is the sign of a server that ignored sendInitialEvents
// (errInitialEventsIgnored).
//
// Its guard bounds the initial events as a LIST is bounded (apiclient.ListLimits):
// the objects, and the bytes of the stream read so far.
type collector struct {
	items []*apiclient.Object
	guard *apiclient.PageGuard
	read  int64 // the stream's bytes the guard has been told of
}

// errInitialEventsIgnored is why a streaming list falls back at once: a MODIFIED
// or DELETED event came before the initial-events-end bookmark, so the server
// took the request for a plain watch (a proxy, an aggregated API server, a stand-in
// such as bench's `clientgo serve`). What it streamed is not a state to be
// completed: the LIST that follows says what exists, and the watch after it starts
// at the LIST's resourceVersion, so no change is lost.
var errInitialEventsIgnored = errors.New("the server sent a change before the initial-events-end bookmark: it ignores sendInitialEvents")

// collect takes one event of a streaming list and reports whether it was the end;
// offset is how far the stream has been read (apiclient.Watcher.Offset). A change
// before the end is errInitialEventsIgnored; any other error is a list over its
// limits: it ends the streaming list, with nothing handed on.
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
	case apiclient.Added:
		c.items = append(c.items, ev.Object) // the Sink's own, when it holds it unchanged (decodeHeld)
		if r.tracing {
			r.step(Step{Op: OpItem, Key: ev.Object.Key(), ResourceVersion: rv})
		}
	case apiclient.Bookmark:
		end := ev.Object.Metadata.Annotations[initialEventsEnd] == "true"
		r.step(Step{Op: OpBookmark, ResourceVersion: rv, Initial: end})
		if end && rv != "" {
			r.rv = rv
		}
		r.noteVersion(rv, true, 0, now)
		return end, nil
	case apiclient.Modified, apiclient.Deleted:
		return false, errInitialEventsIgnored
	}
	r.noteVersion("", true, 1, now)
	return false, nil
}
