package difftest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"
)

// watch is one open watch of a run: a goroutine reads its events into events
// until the stream ends or the run closes it.
type watch struct {
	res, label string
	cancel     context.CancelFunc

	mu     sync.Mutex
	events []map[string]any
	ended  error         // why the stream ended, once it has
	change chan struct{} // closed and replaced on every event and at the end
}

// startWatches opens the two watches every resource of a run gets, from the
// resourceVersion of a LIST made first: one of everything in the namespace, one
// filtered by the selector label.
func (r *runner) startWatches(res string) error {
	path := kinds[res].res.Path(r.ns, "", "") + "?limit=1"
	code, out, err := r.t.do(r.ctx, "GET", path, "", nil)
	if err != nil {
		return err
	}
	var l struct {
		Metadata struct{ ResourceVersion string } `json:"metadata"`
	}
	if err := json.Unmarshal(out, &l); err != nil || code != 200 {
		return fmt.Errorf("list %s to start its watches: %d %v %.200s", res, code, err, out)
	}
	for _, sel := range []string{"", selectorLabel + "=on"} {
		q := url.Values{"resourceVersion": {l.Metadata.ResourceVersion}}
		label := "all"
		if sel != "" {
			q.Set("labelSelector", sel)
			label = sel
		}
		w, err := r.openWatch(res, label, q)
		if err != nil {
			return err
		}
		r.watches = append(r.watches, w)
	}
	return nil
}

// openWatch starts a watch of res with query q.
func (r *runner) openWatch(res, label string, q url.Values) (*watch, error) {
	ctx, cancel := context.WithCancel(r.ctx)
	q.Set("watch", "1")
	if !q.Has("timeoutSeconds") {
		q.Set("timeoutSeconds", "600")
	}
	resp, err := r.t.send(ctx, "GET", kinds[res].res.Path(r.ns, "", "")+"?"+q.Encode(), "", nil)
	if err != nil {
		cancel()
		return nil, err
	}
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		cancel()
		return nil, fmt.Errorf("watch %s %s: %d %s", res, label, resp.StatusCode, b)
	}
	w := &watch{res: res, label: label, cancel: cancel, change: make(chan struct{})}
	go w.read(resp.Body)
	return w, nil
}

// read decodes events until the stream ends; it owns body.
func (w *watch) read(body io.ReadCloser) {
	defer body.Close()
	dec := json.NewDecoder(body)
	dec.UseNumber()
	for {
		var ev map[string]any
		err := dec.Decode(&ev)
		w.mu.Lock()
		if err != nil {
			w.ended = err
		} else {
			w.events = append(w.events, ev)
		}
		close(w.change)
		w.change = make(chan struct{})
		w.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// waitFor waits until an event satisfies ok, the stream ends, or the deadline.
func (w *watch) waitFor(ctx context.Context, ok func(map[string]any) bool) error {
	deadline := time.After(watchDeadline)
	seen := 0
	for {
		w.mu.Lock()
		for ; seen < len(w.events); seen++ {
			if ok(w.events[seen]) {
				w.mu.Unlock()
				return nil
			}
		}
		ended, change := w.ended, w.change
		last := map[string]any{}
		if n := len(w.events); n > 0 {
			last = w.events[n-1]
		}
		w.mu.Unlock()
		if ended != nil && last["type"] == "ERROR" {
			return nil // the server ended the watch, and said why
		}
		if ended != nil {
			return fmt.Errorf("watch %s %s ended before the marker: %v", w.res, w.label, ended)
		}
		select {
		case <-change:
		case <-deadline:
			return fmt.Errorf("watch %s %s: no marker after %v", w.res, w.label, watchDeadline)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (r *runner) closeWatches() {
	for _, w := range r.watches {
		w.cancel()
	}
}

// finishWatches creates each resource's marker, waits until every watch of
// the resource has delivered it, and writes the watches' events, marker left
// out, to the transcript.
func (r *runner) finishWatches(resources []string) error {
	for _, res := range resources {
		k := kinds[res]
		code, out, err := r.t.do(r.ctx, "POST", k.res.Path(r.ns, "", ""), "application/json", []byte(markerBody(res)))
		if err != nil || code != 201 {
			return fmt.Errorf("create the marker of %s: %d %v %.300s", res, code, err, out)
		}
	}
	isMarker := func(ev map[string]any) bool { return ev["type"] == "ADDED" && nameOf(ev["object"]) == marker }
	for _, w := range r.watches {
		if err := w.waitFor(r.ctx, isMarker); err != nil {
			return err
		}
	}
	for _, w := range r.watches {
		w.mu.Lock()
		events := w.events
		w.mu.Unlock()
		r.out = append(r.out, "watch "+w.res+" "+w.label+":")
		for _, ev := range events {
			if isMarker(ev) {
				break
			}
			r.out = append(r.out, "    "+r.n.event(w.res, ev))
		}
	}
	return nil
}

// stream runs a streaming list (sendInitialEvents) and reads it up to the
// bookmark that ends its initial events. The initial events are shown sorted
// by name: the order of a streaming list is not part of its contract.
func (r *runner) stream(s Step) (string, error) {
	q, err := url.ParseQuery(s.Query)
	if err != nil {
		return "", err
	}
	q.Set("sendInitialEvents", "true")
	q.Set("resourceVersionMatch", "NotOlderThan")
	q.Set("allowWatchBookmarks", "true")
	w, err := r.openWatch(s.Res, "stream", q)
	if err != nil {
		return "", err
	}
	defer w.cancel()
	end := func(ev map[string]any) bool {
		if ev["type"] == "ERROR" {
			return true
		}
		o, _ := ev["object"].(map[string]any)
		m, _ := o["metadata"].(map[string]any)
		a, _ := m["annotations"].(map[string]any)
		return ev["type"] == "BOOKMARK" && a["k8s.io/initial-events-end"] == "true"
	}
	if err := w.waitFor(r.ctx, end); err != nil {
		return "", err
	}
	w.mu.Lock()
	events := w.events
	w.mu.Unlock()
	var added, rest []string
	for _, ev := range events {
		if ev["type"] == "BOOKMARK" && !end(ev) {
			continue // a periodic bookmark
		}
		o, _ := ev["object"].(map[string]any)
		r.note(s.Res, o)
		line := r.n.event(s.Res, ev)
		if ev["type"] == "ADDED" {
			added = append(added, line)
		} else {
			rest = append(rest, line)
		}
		if end(ev) {
			break
		}
	}
	sort.Strings(added)
	return "\n    " + strings.Join(append(added, rest...), "\n    "), nil
}

// notCompared is an expired step's answer where the real server still served
// its watch (Profile.Unexpired).
const notCompared = "not compared: the real server still serves a watch from version 1"

// expired watches from resourceVersion 1, long compacted on a real server that
// has run a while, and compacted on apitest by Compact just before: both must
// answer 410 Expired, as an ERROR event. A real server that still serves that
// watch from its watch cache answers with events instead, or, with none to
// send, ends the watch after its one second: then the step is told as not
// compared, and apitest's run, told so by Profile.Unexpired, does the same
// without compacting.
func (r *runner) expired(s Step) (string, error) {
	if r.t.fake != nil {
		if r.p.Unexpired[r.stepNo] {
			return notCompared, nil
		}
		r.t.fake.Compact()
	}
	floor := r.n.maxRV
	w, err := r.openWatch(s.Res, "expired", url.Values{"resourceVersion": {"1"}, "timeoutSeconds": {"1"}})
	if err != nil {
		return "", err
	}
	defer w.cancel()
	err = w.waitFor(r.ctx, func(map[string]any) bool { return true })
	w.mu.Lock()
	events := w.events
	w.mu.Unlock()
	if r.t.fake == nil && r.ctx.Err() == nil && (len(events) == 0 || !isExpired(events[0])) {
		return notCompared, nil
	}
	if err != nil {
		return "", err
	}
	r.floor = floor
	clear(r.cont)
	return r.n.event(s.Res, events[0]), nil
}

// isExpired reports whether ev is the ERROR event of a 410 Expired.
func isExpired(ev map[string]any) bool {
	status, _ := ev["object"].(map[string]any)
	return ev["type"] == "ERROR" && fmt.Sprint(status["code"]) == "410"
}

func nameOf(o any) string {
	obj, _ := o.(map[string]any)
	m, _ := obj["metadata"].(map[string]any)
	name, _ := m["name"].(string)
	return name
}
