package apitest

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// watch serves a live watch the way the API server does: from resourceVersion N,
// every change after N; from "" or "0", ADDED for each object that exists, then the
// changes; with sendInitialEvents=true, the same ADDED events and then a BOOKMARK
// annotated k8s.io/initial-events-end. A resourceVersion older than the last Compact
// gets a 410 ERROR event, and so does an open watch at ExpireWatches. The stream ends after timeoutSeconds (on the server's
// clock), when the client leaves, or when the server closes. Periodic bookmarks are
// not sent. While the resource is held (HoldWatch), its changes wait.
func (l *liveState) watch(w http.ResponseWriter, r *http.Request, t target, q url.Values, metadataOnly bool) {
	sel, fields, err := selectorsOf(t, q)
	if err != nil {
		writeStatus(w, http.StatusBadRequest, "BadRequest", "%v", err)
		return
	}
	initial := q.Get("sendInitialEvents") == "true"
	if initial && q.Get("resourceVersionMatch") != "NotOlderThan" {
		writeStatus(w, http.StatusUnprocessableEntity, "Invalid", "sendInitialEvents requires resourceVersionMatch=NotOlderThan")
		return
	}
	var timeout <-chan time.Time
	if secs, _ := strconv.Atoi(q.Get("timeoutSeconds")); secs > 0 {
		timeout = l.clock.After(time.Duration(secs) * time.Second)
	}
	matches := func(namespace string, labels, fieldValues map[string]string) bool {
		return (t.namespace == "" || namespace == t.namespace) && sel(labels) && fields(fieldValues)
	}

	// Where the watch starts is settled under the lock, before the response
	// begins: a Compact that comes after the client saw 200 does not expire it.
	type event struct {
		typ  string
		body []byte
	}
	var first []event
	l.mu.Lock()
	rv := q.Get("resourceVersion")
	from, err := strconv.ParseInt(rv, 10, 64)
	switch {
	case rv == "" || rv == "0" || initial:
		// The current state first, as ADDED events, in key order.
		coll := l.objects[t.collection()]
		for _, k := range sortedKeys(coll) {
			o := coll[k]
			ns, _ := o.meta()["namespace"].(string)
			if matches(ns, labelsOf(o), selectable(t.collection(), o)) {
				first = append(first, event{"ADDED", marshal(o)})
			}
		}
		from = l.rv
		if initial {
			kind, _ := l.kinds(t)
			first = append(first, event{"BOOKMARK", []byte(fmt.Sprintf(`{"kind":%q,"apiVersion":%q,"metadata":{"resourceVersion":"%d","annotations":{"k8s.io/initial-events-end":"true"}}}`,
				kind, t.apiVersion(), l.rv))})
		}
	case err != nil:
		first = append(first, event{"ERROR", []byte(fmt.Sprintf(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"invalid resourceVersion %q","reason":"BadRequest","code":400}`, rv))})
	case from < l.compacted:
		first = append(first, event{"ERROR", expiredStatus(from, l.compacted)})
	}
	expiries := l.expired[t.collection()] // a change of it ends this watch (ExpireWatches)
	if l.expireNext[t.collection()] {
		// ExpireWatches found no watch of res open: this one, the next, meets it.
		delete(l.expireNext, t.collection())
		first = []event{{"ERROR", expiredStatus(from, l.compacted)}}
	}
	if l.watching == nil {
		l.watching = map[string]int{}
	}
	l.watching[t.collection()]++
	defer func() {
		l.mu.Lock()
		l.watching[t.collection()]--
		l.mu.Unlock()
	}()
	l.mu.Unlock()

	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	flush()
	send := func(typ string, body []byte) {
		if t.conv != nil && !metadataOnly && typ != "ERROR" && typ != "BOOKMARK" {
			if conv, err := t.conv.answerAt(body, t.apiVersion()); err != nil {
				typ, body = "ERROR", marshal(statusOf(err))
			} else {
				body = conv
			}
		}
		if metadataOnly && typ != "ERROR" {
			body = partialJSON(body)
		}
		fmt.Fprintf(w, `{"type":%q,"object":%s}`+"\n", typ, body)
		flush()
	}
	for _, ev := range first {
		send(ev.typ, ev.body)
		if ev.typ == "ERROR" {
			return
		}
	}

	for {
		l.mu.Lock()
		var batch []change
		if l.held[t.collection()] == 0 { // HoldWatch (hold.go)
			for _, c := range l.history {
				if c.rv > from && c.collection == t.collection() {
					batch = append(batch, c)
				}
			}
			if n := len(l.history); n > 0 && l.history[n-1].rv > from {
				from = l.history[n-1].rv
			}
		}
		wake, stopped := l.changed, l.stopped
		expired := l.expired[t.collection()] != expiries
		compacted := l.compacted
		l.mu.Unlock()
		for _, c := range batch {
			if typ, body := c.seenBy(matches); typ != "" {
				send(typ, body)
			}
		}
		if expired {
			send("ERROR", expiredStatus(from, compacted))
			return
		}
		select {
		case <-wake:
		case <-timeout:
			return
		case <-r.Context().Done():
			return
		case <-stopped:
			return
		}
	}
}

// seenBy is the event a watch that selects with matches gets for c, as the
// API server's watch cache works it out: an object that comes into the
// selection is ADDED, one that stays is MODIFIED, one that leaves it (or is
// deleted) is DELETED, with the content it had and the version of the change;
// "" when the watch sees nothing.
func (c change) seenBy(matches func(namespace string, labels, fields map[string]string) bool) (string, []byte) {
	now := c.typ != "DELETED" && matches(c.namespace, c.labels, c.fields)
	before := c.prev != nil && matches(c.namespace, c.prevLabels, c.prevFields)
	switch {
	case now && before:
		return "MODIFIED", c.body
	case now:
		return "ADDED", c.body
	case before && c.typ == "DELETED":
		return "DELETED", c.body
	case before:
		var gone object
		if decodeJSON(c.prev, &gone) != nil {
			return "", nil
		}
		gone.meta()["resourceVersion"] = strconv.FormatInt(c.rv, 10)
		return "DELETED", marshal(gone)
	}
	return "", nil
}
