package perturb

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
)

// stream is one watch of a process: what the server (or, for a lagging view,
// the history) wrote, held until the driver delivers it, one event at a time.
// Its fields are guarded by network.mu.
type stream struct {
	n      *network
	id     int
	proc   *process
	t      target
	client context.Context // the client's request: done when it stops reading
	server context.Context // the writer's: done when the stream is ended for it
	cancel context.CancelFunc

	queued  [][]byte // events written and not yet delivered, one line each
	ended   bool     // the writer is done: after queued, the end of the stream
	avail   []byte   // delivered, not yet read by the client
	err     error    // after avail: io.EOF, a cut, a crash
	wake    chan struct{}
	hold    *coalesce // while set, nothing is delivered (set in let.go, lifted in absorb.go)
	late    bool      // held by a Late perturbation: nothing is delivered
	lag     *lagFeed  // set for a stream served from the history (lag.go)
	initial bool      // still in a streaming list's initial events
}

// event is a watch line, as much of it as the story and the faults read.
type event struct {
	typ, ns, name, rv string
	initialEnd        bool
}

func parseEvent(line []byte) event {
	var ev struct {
		Type   string `json:"type"`
		Object struct {
			Metadata struct {
				Namespace, Name, ResourceVersion string
				Annotations                      map[string]string
			} `json:"metadata"`
		} `json:"object"`
	}
	json.Unmarshal(line, &ev)
	m := ev.Object.Metadata
	return event{typ: ev.Type, ns: m.Namespace, name: m.Name, rv: m.ResourceVersion, initialEnd: m.Annotations["k8s.io/initial-events-end"] == "true"}
}

func (e event) key() string { return objectKey(e.ns, e.name) }

func (e event) version() int64 {
	v, _ := strconv.ParseInt(e.rv, 10, 64)
	return v
}

// openStream starts the server's side of a watch in a goroutine of its own and
// answers with its status; a 200's body is the stream.
func (n *network) openStream(c *call, req *http.Request) *http.Response {
	s := n.newStream(c, req)
	var refusal []byte
	ended := make(chan struct{})
	w := newLineWriter(s.write, func(p []byte) { refusal = append(refusal, p...) })
	go func() {
		defer close(ended)
		n.h.ServeHTTP(w, req.WithContext(s.server))
		w.start(http.StatusOK)
		n.mu.Lock()
		s.ended = true
		s.notify()
		n.mu.Unlock()
		n.signal()
	}()
	<-w.started
	if w.code != http.StatusOK {
		// A refusal (a bad selector, a version too old): read it whole.
		<-ended
		s.forget()
		return &http.Response{StatusCode: w.code, Header: w.header, Body: io.NopCloser(bytes.NewReader(refusal)), ContentLength: int64(len(refusal))}
	}
	return s.response(w.header)
}

// newStream files a stream for c; for the workload (no process) what is
// written is delivered at once.
func (n *network) newStream(c *call, req *http.Request) *stream {
	ctx, cancel := context.WithCancel(req.Context())
	q := req.URL.Query()
	s := &stream{n: n, proc: c.proc, t: c.t, client: req.Context(), server: ctx, cancel: cancel, wake: make(chan struct{}, 1), initial: q.Get("sendInitialEvents") == "true"}
	n.mu.Lock()
	n.ids++
	s.id = n.ids
	if s.proc != nil {
		n.streams = append(n.streams, s)
	}
	n.mu.Unlock()
	return s
}

func (s *stream) response(h http.Header) *http.Response {
	if h == nil {
		h = http.Header{"Content-Type": {"application/json"}}
	}
	return &http.Response{StatusCode: http.StatusOK, Header: h, Body: &streamBody{s}, ContentLength: -1}
}

// write takes one line from the stream's writer.
func (s *stream) write(line []byte) {
	s.n.mu.Lock()
	if s.proc == nil {
		s.avail = append(append(s.avail, line...), '\n')
		s.notify()
	} else if s.err == nil {
		s.queued = append(s.queued, line)
	}
	s.n.mu.Unlock()
	s.n.signal()
}

// deliverable says whether the driver can deliver something; mu held.
func (s *stream) deliverable() bool {
	return s.err == nil && s.hold == nil && !s.late && (len(s.queued) > 0 || s.ended)
}

// next takes the next line to deliver (nil: the end of the stream); mu held.
func (s *stream) next() []byte {
	if len(s.queued) == 0 {
		return nil
	}
	line := s.queued[0]
	s.queued = s.queued[1:]
	return line
}

// put delivers line (nil: the end) to the client; mu held.
func (s *stream) put(line []byte) {
	if line == nil {
		s.breakOff(io.EOF)
		return
	}
	s.avail = append(append(s.avail, line...), '\n')
	s.notify()
}

// breakOff ends the stream for the client after what it was delivered, with
// err (io.EOF for a clean end), and stops the writer; mu held.
func (s *stream) breakOff(err error) {
	if s.err == nil {
		s.err = err
	}
	s.queued = nil
	s.cancel()
	s.notify()
}

func (s *stream) notify() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// streamBody is the client's side: it reads what was delivered.
type streamBody struct{ s *stream }

func (b *streamBody) Read(p []byte) (int, error) {
	s := b.s
	for {
		s.n.mu.Lock()
		if len(s.avail) > 0 {
			k := copy(p, s.avail)
			s.avail = s.avail[k:]
			s.n.mu.Unlock()
			return k, nil
		}
		if err := s.err; err != nil || (s.proc == nil && s.ended) {
			s.n.mu.Unlock()
			if err == nil {
				err = io.EOF
			}
			return 0, err
		}
		s.n.mu.Unlock()
		select {
		case <-s.wake:
		case <-s.client.Done():
			return 0, s.client.Err()
		}
	}
}

// Close stops the watch: the writer ends, and the gate forgets the stream.
func (b *streamBody) Close() error {
	b.s.forget()
	return nil
}

func (s *stream) forget() {
	s.cancel()
	s.n.mu.Lock()
	s.n.streams = remove(s.n.streams, s)
	s.n.mu.Unlock()
}

// lineWriter is the server's side of a watch: a ResponseWriter that hands on
// each whole line of a 200, and whatever is written with another status (a
// refusal) as it comes.
type lineWriter struct {
	header  http.Header
	code    int
	buf     []byte
	started chan struct{} // closed once the status is known
	line    func([]byte)
	other   func([]byte)
}

func newLineWriter(line, other func([]byte)) *lineWriter {
	return &lineWriter{header: http.Header{}, started: make(chan struct{}), line: line, other: other}
}

func (w *lineWriter) Header() http.Header  { return w.header }
func (w *lineWriter) Flush()               { w.start(http.StatusOK) }
func (w *lineWriter) WriteHeader(code int) { w.start(code) }

func (w *lineWriter) start(code int) {
	if w.code == 0 {
		w.code = code
		close(w.started)
	}
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.start(http.StatusOK)
	if w.code != http.StatusOK {
		if w.other != nil {
			w.other(p)
		}
		return len(p), nil
	}
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := append([]byte(nil), w.buf[:i]...)
		w.buf = w.buf[i+1:]
		if len(bytes.TrimSpace(line)) > 0 {
			w.line(line)
		}
	}
}
