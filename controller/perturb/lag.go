package perturb

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kubewire/kubewire/apiclient/selector"
)

// lag is a stale view, as a lagging API server serves it: kube-apiserver's
// watch cache behind etcd, or an HA replica's behind another's. It stands at
// version rv for one collection of one process, and serves only what such a
// server could serve, by the form of each read (stale, below):
//
//	may be stale                                  served from the history at
//	LIST, GET or watch at resourceVersion "0"     rv ("any version")
//	LIST or streaming list NotOlderThan X          the later of X and rv
//	watch from X                                   X, then changes up to rv, held
//	                                               there until the lag lifts
//	never stale (a consistent read)
//	LIST, GET or watch with no resourceVersion    the server, as it is now
//	LIST at X with resourceVersionMatch=Exact     the server
//
// A lag lifts on a clock of its own (until: Spec.Lag after the process
// starts), whatever the process does meanwhile, as a real watch cache catches
// up; the driver lifts it earlier if the process is idle (Quiet) first. Then
// its watches catch up, every change in order, and what it reads from then on
// goes to the server.
type lag struct {
	coll   string
	rv     int64     // the server's resourceVersion it stands at
	v      int       // the same, as a report counts versions
	until  time.Time // when it lifts, on the bubble's clock
	lifted bool      // guarded by network.mu
}

// lagging returns the lag over t's collection, while it holds.
func (p *process) lagging(t target) *lag {
	p.net.mu.Lock()
	defer p.net.mu.Unlock()
	if l := p.lag; l != nil && !l.lifted && l.coll == t.coll() {
		return l
	}
	return nil
}

// stale answers req from l where a lagging server could serve that form of
// read stale; nil means it could not (a consistent read), and the server
// answers.
func (n *network) stale(c *call, l *lag, req *http.Request, watching bool) *http.Response {
	q := req.URL.Query()
	from := q.Get("resourceVersion")
	if from == "" || q.Get("resourceVersionMatch") == "Exact" {
		return nil // a consistent read, or one exact version: never stale
	}
	at := l.rv // "0": any version the cache has
	if rv, err := strconv.ParseInt(from, 10, 64); err == nil && rv > at {
		at = rv // NotOlderThan: no older than what the client has seen
	}
	switch {
	case c.t.name != "" && !watching:
		return l.get(n.hist, c.t, req, at)
	case !watching:
		return l.list(n.hist, c.t, req, at)
	}
	return n.lagStream(c, l, req, at)
}

// view is what one list or watch selects: a namespace, label and field
// selectors, and whether only metadata is asked for.
type view struct {
	namespace string
	labels    selector.Labels
	fields    selector.Fields
	partial   bool
}

func newView(t target, req *http.Request) (view, error) {
	q := req.URL.Query()
	v := view{namespace: t.namespace, partial: strings.Contains(req.Header.Get("Accept"), "as=PartialObjectMetadata")}
	var err error
	if v.labels, err = selector.Parse(q.Get("labelSelector")); err != nil {
		return v, err
	}
	v.fields, err = selector.ParseFields(q.Get("fieldSelector"))
	return v, err
}

func (v view) selects(c change) bool {
	return (v.namespace == "" || c.ns == v.namespace) && v.labels.Matches(c.labels) &&
		v.fields.Matches(map[string]string{"metadata.name": c.name, "metadata.namespace": c.ns})
}

// object is c's object as this view carries it.
func (v view) object(c change) []byte {
	if !v.partial {
		return c.raw
	}
	b, _ := json.Marshal(map[string]any{"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": metadata(c.obj)})
	return b
}

// selected returns the objects the view selects at version at, by key.
func (l *lag) selected(h *history, v view, at int64) []change {
	var out []change
	for _, c := range h.at(at)[l.coll] {
		if v.selects(c) {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key() < out[j].key() })
	return out
}

// list answers a LIST at version at, whole: the API server answers a list
// from its watch cache in one page too, whatever the limit.
func (l *lag) list(h *history, t target, req *http.Request, at int64) *http.Response {
	v, err := newView(t, req)
	if err != nil {
		return statusResponse(http.StatusBadRequest, "BadRequest", err.Error(), "")
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"kind":"List","apiVersion":"v1","metadata":{"resourceVersion":"%d"},"items":[`, at)
	for i, c := range l.selected(h, v, at) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(v.object(c))
	}
	b.WriteString("]}")
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(&b), ContentLength: int64(b.Len())}
}

// get answers a GET of one object at version at: the object as it stood
// there, or 404.
func (l *lag) get(h *history, t target, req *http.Request, at int64) *http.Response {
	v, err := newView(t, req)
	if err != nil {
		return statusResponse(http.StatusBadRequest, "BadRequest", err.Error(), "")
	}
	c, ok := h.at(at)[l.coll][objectKey(t.namespace, t.name)]
	if !ok {
		return statusResponse(http.StatusNotFound, "NotFound", fmt.Sprintf("%s %q not found", t.coll(), t.name), "")
	}
	b := v.object(c)
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(bytes.NewReader(b)), ContentLength: int64(len(b))}
}

// lagFeed is a watch served from the history: it holds the changes after
// cursor that its view selects, up to the lag's version until the lag is
// lifted, and every one after.
type lagFeed struct {
	l      *lag
	v      view
	cursor int64
}

// lagStream answers a watch from the history: a streaming list's initial
// events (or, from version "0", the objects as ADDED events) at version at,
// then the changes after it as the driver feeds them (feed); a watch from a
// version, the changes after that version.
func (n *network) lagStream(c *call, l *lag, req *http.Request, at int64) *http.Response {
	v, err := newView(c.t, req)
	if err != nil {
		return statusResponse(http.StatusBadRequest, "BadRequest", err.Error(), "")
	}
	s := n.newStream(c, req)
	f := &lagFeed{l: l, v: v, cursor: at}
	var lines [][]byte
	from := req.URL.Query().Get("resourceVersion")
	if !s.initial && from != "0" {
		f.cursor, _ = strconv.ParseInt(from, 10, 64) // every change after it, none skipped
	} else {
		for _, ch := range l.selected(n.hist, v, at) {
			lines = append(lines, eventLine("ADDED", v.object(ch)))
		}
		if s.initial {
			lines = append(lines, eventLine("BOOKMARK", []byte(fmt.Sprintf(
				`{"kind":"Bookmark","apiVersion":"v1","metadata":{"resourceVersion":"%d","annotations":{"k8s.io/initial-events-end":"true"}}}`, at))))
		}
	}
	n.mu.Lock()
	s.lag, s.queued = f, lines
	n.mu.Unlock()
	n.signal()
	return s.response(nil)
}

// feed queues on each lagged stream what the history now holds for it; called
// by the driver with the bubble idle.
func (n *network) feed() {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, s := range n.streams {
		f := s.lag
		if f == nil || s.err != nil {
			continue
		}
		for _, c := range n.hist.since(f.cursor) {
			if !f.l.lifted && c.rv > f.l.rv {
				break
			}
			if c.coll == f.l.coll && f.v.selects(c) {
				s.queued = append(s.queued, eventLine(c.typ, f.v.object(c)))
			}
			f.cursor = c.rv
		}
	}
}

func eventLine(typ string, obj []byte) []byte {
	return fmt.Appendf(nil, `{"type":%q,"object":%s}`, typ, obj)
}
