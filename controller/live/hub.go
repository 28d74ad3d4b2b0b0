package live

import (
	"sync"
	"time"

	"github.com/kubewire/kubewire/controller/pipeline"
	"github.com/kubewire/kubewire/controller/trace"
	"github.com/kubewire/kubewire/listwatch"
)

// keep is how many hops a Hub remembers: enough for a page opened after the
// demo's story to follow any object of it, and a bounded cost on a busy
// cluster (a hop is a few hundred bytes: about 2 MiB).
const keep = 8192

// Options say what a Hub serves.
type Options struct {
	// Command names what runs: "demo", "run" or "sync" (shown on the page).
	Command string
	// Pipeline reads every stage's state; Manager.Pipeline.
	Pipeline func() pipeline.Snapshot
	// Step makes Trace wait, at every hop, until the page asks for the next one
	// (POST /api/step) or the Hub is closed.
	Step bool
	// DeltaFIFO says the informers use the classic DeltaFIFO, so that a pop is
	// explained with fifo/deltafifo.go.
	DeltaFIFO bool
}

// Hub receives the pipeline's trace, remembers the last hops, and tells the
// pages that follow an object what happens to it. Build it with New; safe for
// concurrent use. Its Trace costs a lock and a slot in a ring while no page is
// open; a line is read (parse) only while a page is open or in step mode.
type Hub struct {
	opts  Options
	start time.Time

	mu        sync.Mutex
	ring      [keep]slot // ring[(seq-1)%keep] is hop seq
	seq       uint64
	read      uint64          // hops 1…read have been made from their Events (readLocked)
	streaming map[string]bool // per informer: its last WATCH asked for a streaming list, so its ITEMs are watchlist.go's
	pages     map[*page]struct{}
	paused    *Hop // step mode: the hop Trace is waiting at
	done      bool // the story is over (Finish)
	advance   chan struct{}
	closed    chan struct{}
	closeOnce sync.Once
	stepMu    sync.Mutex // step mode: one hop at a time
}

// New returns a Hub; call Close when done with it.
func New(opts Options) *Hub {
	return &Hub{opts: opts, start: time.Now(), streaming: map[string]bool{}, pages: map[*page]struct{}{}, advance: make(chan struct{}), closed: make(chan struct{})}
}

// slot is one hop in the ring: the Event as it came, until a page reads it,
// then the Hop made of it.
type slot struct {
	event trace.Event
	hop   Hop // Seq and Time from the start; the rest once read
}

// Trace takes one Event: give it to ManagerOptions.Trace. In step mode it
// returns only when the page has asked for the next hop, or the Hub was closed.
func (h *Hub) Trace(e trace.Event) {
	if h.opts.Step {
		h.stepMu.Lock()
		defer h.stepMu.Unlock()
	}
	now := time.Now()
	h.mu.Lock()
	h.seq++
	h.ring[(h.seq-1)%keep] = slot{event: e, hop: Hop{Seq: h.seq, Time: now}}
	if len(h.pages) == 0 && !h.opts.Step {
		h.mu.Unlock()
		return
	}
	hop := h.readLocked(h.seq)
	for p := range h.pages {
		p.offer(hop)
	}
	if !h.opts.Step {
		h.mu.Unlock()
		return
	}
	h.paused = &hop
	h.broadcastStepLocked()
	h.mu.Unlock()

	select {
	case <-h.advance:
	case <-h.closed:
	}
	h.mu.Lock()
	h.paused = nil
	h.broadcastStepLocked()
	h.mu.Unlock()
}

// Next lets the paused hop go on; false if nothing is paused (or not in step
// mode).
func (h *Hub) Next() bool {
	h.mu.Lock()
	paused := h.paused != nil
	h.mu.Unlock()
	if !paused {
		return false
	}
	select {
	case h.advance <- struct{}{}:
		return true
	case <-h.closed:
		return false
	}
}

// Finish says the story is over: step mode's pages say so.
func (h *Hub) Finish() {
	h.mu.Lock()
	h.done = true
	h.broadcastStepLocked()
	h.mu.Unlock()
}

// Close releases a hop waiting in step mode, and every later one: the process
// is stopping, and nobody will click.
func (h *Hub) Close() {
	h.closeOnce.Do(func() { close(h.closed) })
}

// Step is where step mode stands, as the page is told.
type Step struct {
	Paused bool `json:"paused"`
	Hop    *Hop `json:"hop,omitempty"`
	Done   bool `json:"done"`
}

func (h *Hub) stepLocked() Step {
	s := Step{Done: h.done}
	if h.paused != nil {
		hop := *h.paused
		s.Paused, s.Hop = true, &hop
	}
	return s
}

func (h *Hub) broadcastStepLocked() {
	if !h.opts.Step {
		return
	}
	s := h.stepLocked()
	for p := range h.pages {
		p.offerStep(s)
	}
}

// readLocked returns hop seq from the ring, made from its Event and explained.
// Hops are read in the order they came (each once; the ring keeps the result):
// how an ITEM is explained depends on its informer's WATCH or LIST before it.
func (h *Hub) readLocked(seq uint64) Hop {
	if h.read+keep < h.seq {
		h.read = h.seq - keep // those left the ring unread
	}
	for ; h.read < seq; h.read++ {
		s := &h.ring[h.read%keep]
		hop := hopOf(s.event)
		hop.Seq, hop.Time = s.hop.Seq, s.hop.Time
		hop.MS = float64(s.hop.Time.Sub(h.start).Microseconds()) / 1000
		h.explainFiles(s.event, &hop)
		s.hop, s.event = hop, trace.Event{} // the Event is not needed again
	}
	return h.ring[(seq-1)%keep].hop
}

// explainFiles adjusts what one hop cannot tell: which FIFO pops, and whether
// an ITEM belongs to its informer's streaming list.
func (h *Hub) explainFiles(e trace.Event, hop *Hop) {
	switch {
	case e.Stage == trace.Reflector && e.Step.Op == listwatch.OpWatch:
		h.streaming[e.Informer] = e.Step.Initial
	case e.Stage == trace.Reflector && e.Step.Op == listwatch.OpList:
		h.streaming[e.Informer] = false
	case e.Stage == trace.Reflector && e.Step.Op == listwatch.OpItem && h.streaming[e.Informer]:
		hop.What, hop.File = "One object of the streaming list arrives as an ADDED event; the Reflector collects it until the initial-events-end bookmark.", "listwatch/watchlist.go"
	case hop.File == "fifo/inorder.go" && h.opts.DeltaFIFO:
		hop.What, hop.File = "Pop hands the informer every delta of one key, oldest first.", "fifo/deltafifo.go"
	}
}

// historyLocked returns the remembered hops on f's path, oldest first.
func (h *Hub) historyLocked(f *follower) []Hop {
	first := uint64(1)
	if h.seq > keep {
		first = h.seq - keep + 1
	}
	out := []Hop{} // an empty path is [] to a page, not null
	for seq := first; seq <= h.seq; seq++ {
		if hop := h.readLocked(seq); f.on(hop) {
			out = append(out, hop)
		}
	}
	return out
}

// recent returns up to n object keys of the latest hops, newest first.
func (h *Hub) recent(n int) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := []string{}
	seen := map[string]bool{}
	for seq := h.seq; seq > 0 && h.seq-seq < keep && len(out) < n; seq-- {
		hop := h.readLocked(seq)
		if hop.Key != "" && !seen[hop.Key] && hop.Stage != "apiclient" {
			seen[hop.Key] = true
			out = append(out, hop.Key)
		}
	}
	return out
}

// hops is how many hops the Hub has seen.
func (h *Hub) hops() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.seq
}

// follower decides which hops are on one object's path: its own; the queue
// hops its events caused (from=key), and from then on the hops of the Requests
// those queued: their reconciles and the writes made meanwhile.
type follower struct {
	key      string
	requests map[string]bool
}

func newFollower(key string) *follower { return &follower{key: key, requests: map[string]bool{}} }

func (f *follower) on(hop Hop) bool {
	switch {
	case hop.Key == f.key && hop.Key != "":
		return true
	case hop.Stage == "queue" && hop.From == f.key:
		f.requests[hop.Key] = true
		return true
	case (hop.Stage == "controller" || hop.Stage == "apiclient") && f.requests[hop.Key]:
		return true
	}
	return false
}
