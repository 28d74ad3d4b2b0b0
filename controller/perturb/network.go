package perturb

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
)

// network is everything between the processes' clients and the server. Each
// process's client has a transport of its own that hands every request to the
// gate, where it waits until the driver (execution.go) lets it through; the
// server's watch streams reach the client one event at a time, each delivery
// let through the same way (stream.go). The driver lets one thing through,
// waits until the whole bubble is idle again (synctest.Wait), and picks the
// next: what runs in between is one causal chain, so the same choices give the
// same execution. Where a perturbation acts, the gate is where it does:
// a fault answered instead of the server, a process cut off, a view served
// from the history.
//
// The workload's client and the events a Recorder writes pass straight
// through: the workload runs in the driver's own goroutine, and an Event is
// a note for people, not a controller's state.
type network struct {
	h    http.Handler
	hist *history

	mu       sync.Mutex
	calls    []*call   // requests held at the gate
	streams  []*stream // open watch streams of the processes
	finishes []*finish // workers held at the end of a Reconcile
	ids      int       // streams opened so far
	arrived  chan struct{}
	// told is called with each call of a process once it is answered, from
	// the goroutine that made it, before the answer is handed back.
	told func(*call)
}

// call is one request of a process, held at the gate.
type call struct {
	proc    *process
	req     *http.Request
	body    []byte
	t       target
	release chan verdict
	sortKey string
	gated   bool // held at the gate (a process's, and not a note)
	nth     int  // a write's rank among the processes' writes, from 1

	code int // the answer's status
}

// verdict is what the driver decided for a call.
type verdict struct {
	dead  bool   // the process is gone: the request never arrives
	fault *fault // answered by the gate instead of the server, or after it
	crash bool   // the server makes the write, and the process dies before it reads the answer
}

// errCrashed is what a process that has been stopped gets for every request it
// still makes: from its side, the connection is gone.
var errCrashed = errors.New("perturb: connection refused (this process was stopped)")

func newNetwork(h http.Handler, hist *history) *network {
	return &network{h: h, hist: hist, arrived: make(chan struct{}, 1)}
}

// transport is one process's http.RoundTripper (proc nil: the workload's).
type transport struct {
	net  *network
	proc *process
}

func (tr transport) RoundTrip(req *http.Request) (*http.Response, error) {
	n := tr.net
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		req.Body.Close()
	}
	t, ok := parseTarget(req.URL.Path)
	if ok {
		n.hist.record(t)
	}
	c := &call{proc: tr.proc, req: req, body: body, t: t, release: make(chan verdict, 1)}
	if tr.proc == nil {
		return n.serve(c, verdict{})
	}
	n.mu.Lock()
	if tr.proc.dead {
		n.mu.Unlock()
		return nil, errCrashed // a note too: a stopped process writes nothing
	}
	if !ok || isNote(t.coll()) {
		n.mu.Unlock()
		return n.serve(c, verdict{})
	}
	c.gated = true
	c.sortKey = fmt.Sprintf("%06d %s %s %s", tr.proc.n, req.Method, req.URL.RequestURI(), body)
	n.calls = append(n.calls, c)
	n.mu.Unlock()
	n.signal()
	select {
	case v := <-c.release:
		return n.serve(c, v)
	case <-req.Context().Done():
		n.mu.Lock()
		n.calls = remove(n.calls, c)
		n.mu.Unlock()
		return nil, req.Context().Err()
	}
}

// isNote says whether a collection holds notes rather than state: Events, and
// the Leases of leader election.
func isNote(coll string) bool {
	return coll == "events" || coll == "events.events.k8s.io" || coll == "leases.coordination.k8s.io"
}

// signal wakes the driver if it waits for something to let through.
func (n *network) signal() {
	select {
	case n.arrived <- struct{}{}:
	default:
	}
}

// serve answers c as the verdict says: from the server, from the history (a
// lagging view), or with a fault.
func (n *network) serve(c *call, v verdict) (*http.Response, error) {
	if v.dead {
		return nil, errCrashed
	}
	if f := v.fault; f != nil && !f.applied {
		return n.answered(c, f.response(c.req))
	}
	req := c.req.Clone(c.req.Context())
	req.Body = io.NopCloser(bytes.NewReader(c.body))
	q := req.URL.Query()
	watching := req.Method == http.MethodGet && (q.Get("watch") == "true" || q.Get("watch") == "1")
	if c.proc != nil && req.Method == http.MethodGet {
		if l := c.proc.lagging(c.t); l != nil {
			if resp := n.stale(c, l, req, watching); resp != nil {
				return n.answered(c, resp)
			}
		}
	}
	if watching {
		return n.answered(c, n.openStream(c, req))
	}
	rec := httptest.NewRecorder()
	n.h.ServeHTTP(rec, req)
	resp := rec.Result()
	if f := v.fault; f != nil {
		resp = f.response(c.req) // the write is made; its answer is lost
	}
	if v.crash {
		n.answered(c, resp)
		n.kill(c.proc)
		return nil, errCrashed
	}
	return n.answered(c, resp)
}

// answered tells the story of a call, now that it has its answer.
func (n *network) answered(c *call, resp *http.Response) (*http.Response, error) {
	c.code = resp.StatusCode
	if c.gated && n.told != nil {
		n.told(c)
	}
	resp.Request = c.req
	return resp, nil
}

// enabled returns what the gate can let through now, in an order that does
// not depend on how goroutines were scheduled: held calls by process, method,
// URI and body; streams by the order they were opened; workers by process
// and Request.
func (n *network) enabled() (calls []*call, streams []*stream, finishes []*finish) {
	n.mu.Lock()
	defer n.mu.Unlock()
	calls = append(calls, n.calls...)
	sort.SliceStable(calls, func(i, j int) bool { return calls[i].sortKey < calls[j].sortKey })
	for _, s := range n.streams {
		if s.deliverable() {
			streams = append(streams, s)
		}
	}
	finishes = append(finishes, n.finishes...)
	sort.SliceStable(finishes, func(i, j int) bool { return finishes[i].sortKey < finishes[j].sortKey })
	return calls, streams, finishes
}

// let lets c through with v.
func (n *network) let(c *call, v verdict) {
	n.mu.Lock()
	n.calls = remove(n.calls, c)
	n.mu.Unlock()
	c.release <- v
}

// kill cuts a process off: its held calls fail, its streams break, and every
// request it makes from now on fails at once.
func (n *network) kill(p *process) {
	n.mu.Lock()
	p.dead = true
	var held []*call
	for _, c := range n.calls {
		if c.proc == p {
			held = append(held, c)
		}
	}
	for _, s := range n.streams {
		if s.proc == p {
			s.breakOff(errCrashed)
		}
	}
	var finishes []*finish
	for _, f := range n.finishes {
		if f.proc != p {
			finishes = append(finishes, f)
		}
	}
	n.finishes = finishes
	p.stop()
	n.mu.Unlock()
	for _, c := range held {
		n.let(c, verdict{dead: true})
	}
}

func remove[T comparable](list []T, x T) []T {
	for i, y := range list {
		if y == x {
			return append(list[:i:i], list[i+1:]...)
		}
	}
	return list
}

// isWrite says whether a call changes something.
func (c *call) isWrite() bool { return c.req.Method != http.MethodGet }

// describe is the call as the story tells it: "POST deployments.apps
// demo/web", "LIST pods demo", "WATCH pods demo (a streaming list)".
func (c *call) describe() string {
	what := c.t.coll()
	if c.t.sub != "" {
		what += "/" + c.t.sub
	}
	name := c.t.name
	if c.req.Method == http.MethodPost && name == "" {
		name = nameIn(string(c.body))
		if i := strings.LastIndex(name, "/"); i >= 0 {
			name = name[i+1:]
		}
	}
	verb, how := c.req.Method, ""
	if q := c.req.URL.Query(); c.req.Method == http.MethodGet && name == "" {
		verb = "LIST"
		switch {
		case q.Get("sendInitialEvents") == "true":
			verb, how = "WATCH", " (a streaming list)"
		case q.Get("watch") != "":
			verb = "WATCH"
		}
	}
	key := c.t.namespace
	if name != "" {
		key = objectKey(c.t.namespace, name)
	}
	return strings.TrimSpace(verb+" "+what+" "+key) + how
}
