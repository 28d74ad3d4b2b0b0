package listwatch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/kubewire/kubewire/apiclient"
)

// resultKind is how one watch ended, which decides the next state (Reflector.after).
type resultKind int

const (
	ended     resultKind = iota // the server ended it normally: watch again
	gone                        // 410: list again
	failed                      // anything else: back off, watch again
	idle                        // nothing came for too long: dropped, back off, watch again
	fellBack                    // a streaming list failed before it was complete: LIST
	notListed                   // the Sink refused a streaming list: back off, list again
	refused                     // a 4xx but 410 and 429: back off, list again
	stopped                     // ctx is done
)

type result struct {
	kind resultKind
	err  error
}

// errClosedAtOnce: a watch the server ended within a second of asking for it,
// whatever it carried. A healthy server ends a watch at its timeoutSeconds
// (minutes); one that hangs up at once, every time, would make the Reflector
// spin, so it counts as a failure and backs off, and the waits grow as failures
// do. Events do not excuse it: a server that sends one MODIFIED and hangs up made
// a Reflector watch 2,670 times a second at 60% of a core (issue 29). (client-go
// calls it a "very short watch", but only when it carried no event, so one event
// or one bookmark defeats its check.) A streaming list's stream is not held to
// it: if it ended soon after its list, the list was done, and the next request
// is a plain watch, which is.
var errClosedAtOnce = errors.New("the server ended the watch within a second")

// watch opens one watch and applies its events to the Sink until it ends.
//
// With initial it is a streaming list: the server first sends every object that
// exists as ADDED, then a BOOKMARK annotated k8s.io/initial-events-end; those
// objects are collected, handed to the Sink as one Replace at the bookmark, and from
// there on the same stream is a plain watch. Without initial it starts from the last
// resourceVersion seen.
//
// A watchdog drops the watch when nothing arrives for its timeout plus
// Options.IdleMargin: the server ends a healthy watch at its timeout and sends
// bookmarks meanwhile, so that much silence means the connection is dead.
func (r *Reflector) watch(ctx context.Context, initial bool) result {
	timeout := r.opts.MinWatchTimeout + time.Duration(r.rand()*float64(r.opts.MinWatchTimeout))
	timeout = timeout.Truncate(time.Second)
	opts := apiclient.WatchOptions{ListOptions: r.listOptions(), Decode: r.opts.Decode}
	opts.AllowWatchBookmarks = true
	opts.TimeoutSeconds = int64(timeout / time.Second)
	opts.ResourceVersion = r.rv
	if initial {
		opts.SendInitialEvents, opts.ResourceVersionMatch = true, "NotOlderThan"
		opts.ResourceVersion = r.streamVersion()
		opts.Decode = r.decodeHeld() // the initial events are a list: what the Sink holds is not copied again
	} else if r.watches > 0 {
		r.count(false, true)
	}
	r.watches++

	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r.idleTimeout = timeout + r.opts.IdleMargin
	idle := r.idleTimeout
	if initial {
		idle = initialEventsIdle
	}
	dog := startWatchdog(r.clock, idle, cancel) // armed before the request: a server that never answers is caught too
	defer dog.stop()
	r.step(Step{Op: OpWatch, ResourceVersion: opts.ResourceVersion, Timeout: timeout, Initial: initial})
	started := r.clock.Now()

	w, err := r.rc.Watch(wctx, opts)
	if err != nil {
		return r.ending(ctx, dog, err, initial, 0)
	}
	defer w.Close()
	r.answered()
	var col *collector
	if initial {
		col = &collector{guard: r.rc.PageGuard()}
	}
	n := 0
	for {
		if ctx.Err() != nil {
			// Done while an event was applied (by whoever owns ctx, or by the Sink
			// or OnStep): stop here rather than read on and fail the read.
			return result{stopped, ctx.Err()}
		}
		ev, err := w.Next()
		if err != nil {
			if err == io.EOF && !initial && r.clock.Now().Sub(started) < time.Second {
				err = errClosedAtOnce
			}
			return r.ending(ctx, dog, err, col != nil, n)
		}
		n++
		now := r.clock.Now()
		dog.touch(now)
		if col != nil {
			done, err := r.collect(col, ev, w.Offset(), now)
			if err == errInitialEventsIgnored {
				return r.fallBack(err)
			}
			if err != nil {
				return result{notListed, err}
			}
			if done {
				if err := r.listed(col.items, r.rv, true); err != nil {
					return result{notListed, err}
				}
				col = nil
				dog.setIdle(r.idleTimeout)
			}
			continue
		}
		r.apply(ev, now)
	}
}

// ending classifies why a watch (or its request) ended.
// n is how many events the watch delivered.
func (r *Reflector) ending(ctx context.Context, dog *watchdog, err error, listing bool, n int) result {
	switch {
	case dog.fired.Load():
		if listing && n == 0 {
			return r.fallBack(errNoInitialEvents)
		}
		if listing {
			return r.fallBack(errNoInitialEventsEnd)
		}
		return result{idle, ErrWatchIdle}
	case ctx.Err() != nil:
		return result{stopped, ctx.Err()}
	case listing:
		if err == io.EOF {
			err = errors.New("the stream ended before the initial-events-end bookmark")
		}
		return r.fallBack(err)
	case err == io.EOF:
		r.step(Step{Op: OpClosed, ResourceVersion: r.rv, Items: n})
		return result{ended, nil}
	case unavailable(err):
		return result{gone, err}
	case refusedVersion(err):
		return result{refused, err}
	}
	return result{failed, err}
}

// refusedVersion reports whether the server refused the watch itself with a
// 4xx other than 410 (handled as gone) and 429 (throttled: wait and watch
// again): a 400 for a resourceVersion it cannot read, a 403, a 404. The same
// request can only fail the same way, so the Reflector lists again, after a
// back-off, as client-go does when its ListAndWatch returns. (Retrying the watch
// at the same resourceVersion was issue 16: forever.)
func refusedVersion(err error) bool {
	code := apiclient.CodeOf(err)
	return code >= 400 && code < 500 && code != http.StatusGone && code != http.StatusTooManyRequests
}

// refusesStreaming reports whether a streaming list's request was refused for
// what it asked, not for what it named or for who asked (see fallBack).
func refusesStreaming(err error) bool {
	switch apiclient.CodeOf(err) {
	case http.StatusNotFound, http.StatusUnauthorized, http.StatusForbidden:
		return false
	}
	return refusedVersion(err)
}

// initialEventsIdle is the silence a streaming list's initial events may keep
// before the Reflector gives up on them and lists with LIST. A server that serves
// streaming lists sends the objects back to back from its watch cache, and the end
// bookmark right after; one that ignores sendInitialEvents (a proxy, an aggregated
// API server, a server older than 1.27) sends what a plain watch sends and never
// the end bookmark. Most such servers give themselves away at once, with a change
// before the end (errInitialEventsIgnored); one that answers a watch from "" the
// legacy way — the state as ADDED events, then nothing — is told from a slow one
// only by this silence. One second keeps a sync against it within a second of a
// LIST (issue 33); client-go waits for the whole watch timeout there, and this
// package waited 10 s before.
const initialEventsIdle = time.Second

// errNoInitialEventsEnd: objects came, then initialEventsIdle of silence, and no
// end bookmark: a server that answers the legacy way. Streaming lists are not
// tried again.
var errNoInitialEventsEnd = fmt.Errorf("no initial-events-end bookmark after %v of silence", initialEventsIdle)

// errNoInitialEvents: nothing at all came for initialEventsIdle. That may be a
// server that ignores sendInitialEvents with nothing to say, or one slow to start
// (waiting for its cache to be fresh); this list is a LIST, and the next list
// tries streaming again.
var errNoInitialEvents = fmt.Errorf("no initial event after %v of silence", initialEventsIdle)

// fallBack: a streaming list that failed before it was complete becomes a LIST
// (still in the Listing state). When the server refused the request itself — a
// 400 or a 422 Invalid, as from a server without the WatchList feature — or
// showed that it ignores sendInitialEvents (a change before the end bookmark, or
// objects and then silence), streaming lists are not tried again: the same
// server would do the same. A 404 (the resource is not served: a CRD not
// installed yet), a 401 or a 403 (credentials, RBAC) say nothing about streaming
// and may change, so the next list streams again (issue 31: a 404 on the first
// list turned streaming off for the rest of the process). The stream is closed
// before the LIST is sent, so the LIST is newer than anything streamed, and the
// watch after it starts at its resourceVersion: nothing is lost, only what
// streamed is thrown away.
func (r *Reflector) fallBack(err error) result {
	r.noteError(err)
	r.step(Step{Op: OpFallback, Err: err})
	if refusesStreaming(err) || err == errNoInitialEventsEnd || err == errInitialEventsIgnored {
		r.streaming = false
		r.log.Warn("the server does not serve streaming lists; using LIST from now on", "err", err)
	}
	return result{kind: fellBack, err: err}
}

// apply hands one watch event to the Sink and moves the resourceVersion on. A Sink
// that fails is logged and the watch goes on, as client-go does: the event is lost
// to that Sink, but stopping the watch would lose every later one too.
//
// The event's step is told before the Sink has the event: the informer may pop it
// at once, and a trace must say "ADD" before the "fifo pop" of it.
func (r *Reflector) apply(ev apiclient.Event, now time.Time) {
	var op Op
	switch ev.Type {
	case apiclient.Added:
		op = OpAdd
	case apiclient.Modified:
		op = OpUpdate
	case apiclient.Deleted:
		op = OpDelete
	case apiclient.Bookmark:
		op = OpBookmark
	default:
		// A type this client does not know (a newer server?): skipping it keeps the
		// watch alive; its resourceVersion is not trusted.
		skip := fmt.Errorf("unknown event type %q", ev.Type)
		r.log.Warn("skipping watch event", "err", skip)
		r.step(Step{Op: OpSkip, Err: skip})
		return
	}
	rv := ev.Object.Metadata.ResourceVersion
	if r.tracing {
		s := Step{Op: op, ResourceVersion: rv}
		if op != OpBookmark {
			s.Key = ev.Object.Key()
		}
		r.step(s)
	}
	var err error
	switch op {
	case OpAdd:
		err = r.sink.Add(ev.Object)
	case OpUpdate:
		err = r.sink.Update(ev.Object)
	case OpDelete:
		err = r.sink.Delete(ev.Object)
	case OpBookmark:
		if b, ok := r.sink.(Bookmarker); ok && rv != "" {
			err = b.Bookmark(rv)
		}
	}
	if rv != "" {
		r.rv = rv
	}
	r.events++
	objects := 1
	if op == OpBookmark {
		objects = 0
	}
	r.noteVersion(rv, true, objects, now)
	if err != nil {
		err = &sinkError{op: string(op), err: err}
		r.noteError(err)
		r.log.Warn("the sink refused a watch event", "err", err, "object", ev.Object.Key())
		r.step(Step{Op: OpError, Key: ev.Object.Key(), Err: err, Next: "go on"})
	}
}

// streamVersion is the resourceVersion a streaming list asks for: "" (the latest,
// read consistently) at first or after a refused version, else the last seen.
func (r *Reflector) streamVersion() string {
	if r.rvUnavailable {
		return ""
	}
	return r.rv
}
