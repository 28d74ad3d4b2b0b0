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

	"github.com/kubewire/kubewire/apiclient/selector"
)

// lag is a stale view, as a lagging API server serves it: a process's lists
// and watches of one collection answered from the history as it stood at
// version rv — kube-apiserver's watch cache behind etcd, or an HA replica's
// behind another's — and its watches held there until the driver lifts the
// lag; then they catch up, every change in order. Reads of one object (GET)
// are not lagged: the API server reads those from etcd. Lists and watches
// the process starts after the lag is lifted go to the server.
type lag struct {
	coll   string
	rv     int64 // the server's resourceVersion it stands at
	v      int   // the same, as a report counts versions
	lifted bool  // guarded by network.mu
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

// selected returns the objects the view selects at l's version, by key.
func (l *lag) selected(h *history, v view) []change {
	var out []change
	for _, c := range h.at(l.rv)[l.coll] {
		if v.selects(c) {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key() < out[j].key() })
	return out
}

// list answers a LIST at the lag's version, whole: the API server answers a
// list from its watch cache in one page too, whatever the limit.
func (l *lag) list(h *history, t target, req *http.Request) *http.Response {
	v, err := newView(t, req)
	if err != nil {
		return statusResponse(http.StatusBadRequest, "BadRequest", err.Error(), "")
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"kind":"List","apiVersion":"v1","metadata":{"resourceVersion":"%d"},"items":[`, l.rv)
	for i, c := range l.selected(h, v) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(v.object(c))
	}
	b.WriteString("]}")
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(&b), ContentLength: int64(b.Len())}
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
// events (or, from version "" or "0", the objects as ADDED events) at the
// lag's version, then the changes as the driver feeds them (feed).
func (n *network) lagStream(c *call, l *lag, req *http.Request) *http.Response {
	v, err := newView(c.t, req)
	if err != nil {
		return statusResponse(http.StatusBadRequest, "BadRequest", err.Error(), "")
	}
	s := n.newStream(c, req)
	q := req.URL.Query()
	from := q.Get("resourceVersion")
	f := &lagFeed{l: l, v: v, cursor: l.rv}
	var lines [][]byte
	if s.initial || from == "" || from == "0" {
		for _, ch := range l.selected(n.hist, v) {
			lines = append(lines, eventLine("ADDED", v.object(ch)))
		}
		if s.initial {
			lines = append(lines, eventLine("BOOKMARK", []byte(fmt.Sprintf(
				`{"kind":"Bookmark","apiVersion":"v1","metadata":{"resourceVersion":"%d","annotations":{"k8s.io/initial-events-end":"true"}}}`, l.rv))))
		}
	} else if rv, err := strconv.ParseInt(from, 10, 64); err == nil {
		f.cursor = rv
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
