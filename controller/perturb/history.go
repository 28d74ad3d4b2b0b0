package perturb

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/kubewire/kubewire/apiclient/clock"
)

// history is what the server said, whole: every change to every collection a
// request has touched, in resourceVersion order. Each collection is recorded
// by a watch of its own from resourceVersion 1, opened the first time a
// request names the collection, so nothing before that is missed either — the
// way kube-apiserver's watch cache is fed from etcd. It is the one source of
// the server's state for everything else: the lagging views (lag.go), the
// invariants and the end state (oracle.go), and the report's story.
type history struct {
	h   http.Handler
	ctx context.Context // the execution's: ends the recording watches

	mu      sync.Mutex
	colls   map[string]target // recorded collections, by name ("deployments.apps")
	changes []change          // in resourceVersion order
}

// change is one write, as a watch event carried it.
type change struct {
	rv     int64
	typ    string // ADDED, MODIFIED, DELETED
	coll   string // "pods", "deployments.apps"
	ns     string
	name   string
	labels map[string]string
	raw    []byte         // the object as the event carried it
	obj    map[string]any // raw decoded, numbers kept as json.Number
	// by and madeBy: the process whose write made this change, and the one
	// whose write created the object (0: the workload); set as the driver
	// takes the change in (checkInvariants).
	by, madeBy int
}

func (c change) key() string { return objectKey(c.ns, c.name) }

func newHistory(ctx context.Context, h http.Handler) *history {
	return &history{h: h, ctx: ctx, colls: map[string]target{}}
}

// record starts recording t's collection unless it is recorded already. The
// watch runs in a goroutine of its own until the execution ends; the server
// writes each event into the history as it sends it, so once the bubble is
// idle (synctest.Wait) the history holds every write made so far.
func (h *history) record(t target) {
	h.mu.Lock()
	_, ok := h.colls[t.coll()]
	if !ok {
		h.colls[t.coll()] = t
	}
	h.mu.Unlock()
	if ok {
		return
	}
	u := &url.URL{Path: t.collectionPath(""), RawQuery: "watch=true&resourceVersion=1"}
	req := httptest.NewRequest(http.MethodGet, u.String(), nil).WithContext(h.ctx)
	coll := t.coll()
	w := newLineWriter(func(line []byte) { h.add(coll, line) }, nil)
	go h.h.ServeHTTP(w, req)
}

// add files one line of coll's recording watch.
func (h *history) add(coll string, line []byte) {
	var ev struct {
		Type   string          `json:"type"`
		Object json.RawMessage `json:"object"`
	}
	if json.Unmarshal(line, &ev) != nil || ev.Type == "ERROR" || ev.Type == "BOOKMARK" {
		return
	}
	c := change{typ: ev.Type, coll: coll, raw: ev.Object}
	d := json.NewDecoder(bytes.NewReader(ev.Object))
	d.UseNumber()
	if d.Decode(&c.obj) != nil {
		return
	}
	m := metadata(c.obj)
	c.ns, _ = m["namespace"].(string)
	c.name, _ = m["name"].(string)
	rv, _ := m["resourceVersion"].(string)
	c.rv, _ = strconv.ParseInt(rv, 10, 64)
	c.labels = stringMap(m["labels"])
	h.mu.Lock()
	defer h.mu.Unlock()
	// Recorders of different collections run apart: keep the order by version.
	i := sort.Search(len(h.changes), func(i int) bool { return h.changes[i].rv > c.rv })
	h.changes = append(h.changes, change{})
	copy(h.changes[i+1:], h.changes[i:])
	h.changes[i] = c
}

// since returns the changes after rv, in order.
func (h *history) since(rv int64) []change {
	h.mu.Lock()
	defer h.mu.Unlock()
	i := sort.Search(len(h.changes), func(i int) bool { return h.changes[i].rv > rv })
	return append([]change(nil), h.changes[i:]...)
}

// last is the newest version recorded (0 when nothing was written).
func (h *history) last() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.changes) == 0 {
		return 0
	}
	return h.changes[len(h.changes)-1].rv
}

// ordinal is how many changes to state — Events and Leases aside — the
// history holds at or before rv. It is the version a report shows: the same
// from run to run, where the server's resourceVersions are not (one more
// Event written, and every resourceVersion after it moves).
func (h *history) ordinal(rv int64) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return ordinalIn(h.changes, rv)
}

// version is the resourceVersion of the v-th change to state (1, the
// empty server's, for 0): where the state stood just after it.
func (h *history) version(v int) int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return versionIn(h.changes, v)
}

func ordinalIn(changes []change, rv int64) int {
	n := 0
	for _, c := range changes {
		if c.rv > rv {
			break
		}
		if !isNote(c.coll) {
			n++
		}
	}
	return n
}

func versionIn(changes []change, v int) int64 {
	n := 0
	for _, c := range changes {
		if isNote(c.coll) {
			continue
		}
		if n++; n == v {
			return c.rv
		}
	}
	return 1
}

// at returns the objects that existed at version rv (every version when rv is
// negative), by collection, then by key: the last change of each object at or
// before rv, deletions left out.
func (h *history) at(rv int64) objects {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := objects{}
	for name := range h.colls {
		out[name] = map[string]change{}
	}
	for _, c := range h.changes {
		if rv >= 0 && c.rv > rv {
			break
		}
		if c.typ == "DELETED" {
			delete(out[c.coll], c.key())
		} else {
			out[c.coll][c.key()] = c
		}
	}
	return out
}

// target is what a request's path names:
//
//	/api/v1/namespaces/demo/pods/web/status → pods (v1) in demo, web, status
//	/apis/apps/v1/deployments                → deployments.apps (v1), every namespace
//	/api/v1/namespaces/demo                  → namespaces (v1), demo
type target struct {
	group, version, resource string
	namespace, name, sub     string
}

// parseTarget reads a request's path; ok is false for a path that names no
// resource (/version, /apis).
func parseTarget(path string) (t target, ok bool) {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case len(segs) >= 3 && segs[0] == "api":
		t.version, segs = segs[1], segs[2:]
	case len(segs) >= 4 && segs[0] == "apis":
		t.group, t.version, segs = segs[1], segs[2], segs[3:]
	default:
		return t, false
	}
	if len(segs) >= 3 && segs[0] == "namespaces" && segs[2] != "status" && segs[2] != "finalize" {
		t.namespace, segs = segs[1], segs[2:]
	}
	if len(segs) > 3 {
		return t, false
	}
	segs = append(segs, "", "")
	t.resource, t.name, t.sub = segs[0], segs[1], segs[2]
	return t, t.resource != ""
}

// coll names the collection: "pods", "deployments.apps".
func (t target) coll() string {
	if t.group == "" {
		return t.resource
	}
	return t.resource + "." + t.group
}

// collectionPath is the path of the collection in namespace ns ("" for all).
func (t target) collectionPath(ns string) string {
	p := "/api/" + t.version
	if t.group != "" {
		p = "/apis/" + t.group + "/" + t.version
	}
	if ns != "" {
		p += "/namespaces/" + ns
	}
	return p + "/" + t.resource
}

func metadata(obj map[string]any) map[string]any {
	m, _ := obj["metadata"].(map[string]any)
	return m
}

func stringMap(v any) map[string]string {
	m, _ := v.(map[string]any)
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k], _ = v.(string)
	}
	return out
}

func objectKey(ns, name string) string { return clock.ObjectKey(ns, name) }
