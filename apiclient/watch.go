package apiclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/kubewire/kubewire/apiclient/internal/jsonwire"
)

// EventType is the type of one watch event.
type EventType string

const (
	Added    EventType = "ADDED"
	Modified EventType = "MODIFIED"
	Deleted  EventType = "DELETED"
	// Bookmark carries no change: only a newer resourceVersion to resume from (and,
	// at the end of a streaming list, the k8s.io/initial-events-end annotation).
	Bookmark EventType = "BOOKMARK"
	// Error carries a Status instead of an object; 410 means "start over with a LIST".
	Error EventType = "ERROR"
)

// Event is one change read from a watch stream.
type Event struct {
	Type   EventType
	Object *Object // nil for Error
	Status *Status // set for Error
}

// maxEvent bounds one event on the wire. etcd refuses objects over 1.5 MiB, so a
// longer "line" is a broken or hostile stream, not a big object.
const maxEvent = 16 << 20

// WatchOptions tune a Watcher beyond the query parameters.
type WatchOptions struct {
	ListOptions
	Decode DecodeOptions
}

// Watcher reads one watch stream, one event at a time, never buffering more than
// the event being read. It is not safe for concurrent use: one goroutine calls
// Next until it returns an error, then Close (Close alone may be called from
// another goroutine to stop it).
type Watcher struct {
	ctx    context.Context
	body   io.ReadCloser
	frames *jsonwire.Reader
	cancel context.CancelFunc
	opts   DecodeOptions
	where  string
}

// Watch starts a watch (?watch=true). The server answers with a chunked body of
// {"type": …, "object": …} documents, one per line, and keeps it open until
// TimeoutSeconds, an error, or Close.
func (r ResourceClient) Watch(ctx context.Context, opts WatchOptions) (*Watcher, error) {
	ctx, cancel := context.WithCancel(ctx)
	q := opts.values()
	q.Set("watch", "true")
	req := r.request("GET", "", nil, request{query: q, watch: true, accept: r.accept(false)})
	resp, err := r.c.do(ctx, req)
	if err != nil {
		cancel()
		return nil, err
	}
	frames := jsonwire.NewReader(resp.Body, maxEvent)
	return &Watcher{ctx: ctx, body: resp.Body, frames: frames, cancel: cancel, opts: opts.Decode, where: "watch " + r.res.String()}, nil
}

// Next blocks until the next event. It returns io.EOF when the server ended the
// stream normally (its timeout passed), the context's error when the watch was
// cancelled or closed, and for an ERROR event, the event together with a
// *StatusError (IsGone tells a 410).
//
// Each event is validated in one pass over the Watcher's buffer
// (jsonwire.Reader.Walk), split into type and object as it goes, and the object
// decoded (decode.go): its bytes are copied once, into the Object the cache keeps.
func (w *Watcher) Next() (Event, error) {
	var ev Event
	var span objectSpan
	var data []byte // the buffer the event was walked in: valid until the next read
	var walkErr error
	at, err := w.frames.Walk(func(d []byte) (int, error) {
		data, ev = d, Event{}
		var end int
		end, span, walkErr = w.walkEvent(d, &ev)
		return end, walkErr
	})
	if err != nil && err != walkErr && err != jsonwire.ErrShort {
		return Event{}, w.streamError(err)
	}
	if err == nil {
		err = w.finishEvent(data, &ev, span, at)
	} else {
		err = eventError(err, at)
	}
	if err != nil {
		return Event{}, fmt.Errorf("%s: %w", w.where, err)
	}
	if ev.Type == Error {
		return ev, &StatusError{Status: *ev.Status, Verb: "WATCH", URL: w.where}
	}
	return ev, nil
}

// objectSpan is where an event's object lies in the walked bytes, and whether
// walkEvent decoded it already.
type objectSpan struct {
	at, end int
	decoded bool
}

// walkEvent validates and splits {"type":…,"object":…} in one pass, decoding the
// object as it goes (the server writes "type" first), and returns where the event
// ends; data may go on past it.
func (w *Watcher) walkEvent(data []byte, ev *Event) (int, objectSpan, error) {
	span := objectSpan{at: -1, end: -1}
	end, err := jsonwire.WalkObject(data, 0, 1, func(key []byte, _, i int) (int, error) {
		switch string(key) {
		case "type":
			end, err := jsonwire.CheckValue(data, i, 1)
			if err != nil {
				return end, err
			}
			t, err := jsonwire.String(data[i:end])
			ev.Type = EventType(t)
			return end, err
		case "object":
			if ev.Type != "" && ev.Type != Error {
				obj, end, err := w.opts.decodeAt(data, i)
				ev.Object, span = obj, objectSpan{i, end, true}
				return end, err
			}
			end, err := jsonwire.CheckValue(data, i, 1)
			span = objectSpan{i, end, false}
			return end, err
		}
		return jsonwire.CheckValue(data, i, 1)
	})
	return end, span, err
}

// finishEvent reads what walkEvent left: an ERROR event's Status, and an object
// that came before its type (no server writes that).
func (w *Watcher) finishEvent(data []byte, ev *Event, span objectSpan, at int64) error {
	if span.at < 0 {
		return fmt.Errorf("event at byte %d has no object", at)
	}
	object := data[span.at:span.end]
	if ev.Type == Error {
		st := &Status{}
		if err := json.Unmarshal(object, st); err != nil {
			return fmt.Errorf("ERROR event: %w", err)
		}
		if st.Code == 0 {
			st.Code = http.StatusInternalServerError
		}
		ev.Status = st
		return nil
	}
	if !span.decoded {
		var err error
		if ev.Object, _, err = w.opts.decodeAt(data, span.at); err != nil {
			return fmt.Errorf("event at byte %d: %w", at, err)
		}
	}
	return nil
}

// eventError names an event that could not be decoded: malformed JSON at its
// stream offset, anything else at the event's.
func eventError(err error, at int64) error {
	var se *jsonwire.SyntaxError
	if errors.As(err, &se) || err == jsonwire.ErrShort {
		return fmt.Errorf("event: %w", jsonwire.Locate(err, at))
	}
	return fmt.Errorf("event at byte %d: %w", at, err)
}

// streamError names why reading stopped.
func (w *Watcher) streamError(err error) error {
	// Which of these comes first matters: closing the body (on Close, or when the
	// caller's context ends) can surface as a plain EOF, which must not pass for
	// the server's normal end of stream.
	switch {
	case w.ctx.Err() != nil:
		return fmt.Errorf("%s: closed: %w", w.where, w.ctx.Err())
	case err == io.EOF:
		return io.EOF
	case errors.Is(err, jsonwire.ErrTooLarge):
		return fmt.Errorf("%s: event %w", w.where, err)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%s: stream cut in the middle of an event: %w", w.where, err)
	}
	return fmt.Errorf("%s: %w", w.where, err)
}

// Offset is how many bytes of the stream the Watcher has read, after
// decompression: the events Next returned and the space between them. A
// streaming list's initial events count against the list's bytes with it
// (listwatch).
func (w *Watcher) Offset() int64 { return w.frames.Offset() }

// Close ends the watch and releases its connection. Safe to call more than once
// and from another goroutine than Next's.
func (w *Watcher) Close() {
	w.cancel()
	w.body.Close()
}
