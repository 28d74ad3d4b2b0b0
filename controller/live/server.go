package live

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"path"
	"strconv"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/kubewire/kubewire/controller/metrics"
	"github.com/kubewire/kubewire/controller/pipeline"
)

//go:embed web
var web embed.FS

// Snapshot is what /api/snapshot answers and each "snapshot" event carries: the
// pipeline's counts (pipeline.Snapshot) and what the page shows besides.
type Snapshot struct {
	Command           string    `json:"command"`
	Step              bool      `json:"step"`
	Time              time.Time `json:"time"`
	UptimeSeconds     float64   `json:"uptimeSeconds"`
	Hops              uint64    `json:"hops"`
	pipeline.Snapshot           // leader, informers, controllers
	Recent            []string  `json:"recent"` // keys of the latest hops, newest first
}

// snapshotEvery is how often an open page is sent the counts, when they changed:
// a few times a second is what an eye can follow, and the cost of a snapshot
// (a lock per stage) is paid only while a page is open.
const snapshotEvery = 250 * time.Millisecond

// maxPages bounds the open event streams: each holds a goroutine and a buffer.
// Past it, a new page replaces the oldest stream (guard.go says why).
const maxPages = 32

// pagesOpened numbers the event streams in the order they opened, so that the
// oldest can be told.
var pagesOpened atomic.Uint64

// Handler serves the page and its API:
//
//	GET  /                  the page (web/index.html), /static/… its script and style
//	GET  /api/snapshot      Snapshot
//	GET  /api/events        Server-Sent Events: snapshot, hop (with ?follow=KEY), step
//	GET  /api/follow?key=K  {"key": K, "hops": [...]}: K's remembered path
//	POST /api/step          step mode: let the paused hop go on (409 if none is paused)
//
// It checks nothing about who asks: Serve puts it behind the Host and Origin
// checks and the connection bounds (guard.go). Serve the page with Serve.
func (h *Hub) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		serveStatic(w, r, "index.html")
	})
	mux.HandleFunc("GET /static/{file}", func(w http.ResponseWriter, r *http.Request) {
		serveStatic(w, r, r.PathValue("file"))
	})
	mux.HandleFunc("GET /api/snapshot", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, h.snapshot())
	})
	mux.HandleFunc("GET /api/follow", func(w http.ResponseWriter, r *http.Request) {
		key := r.URL.Query().Get("key")
		h.mu.Lock()
		hops := h.historyLocked(newFollower(key))
		h.mu.Unlock()
		writeJSON(w, struct {
			Key  string `json:"key"`
			Hops []Hop  `json:"hops"`
		}{key, hops})
	})
	mux.HandleFunc("GET /api/events", h.serveEvents)
	mux.HandleFunc("POST /api/step", func(w http.ResponseWriter, r *http.Request) {
		if !h.Next() {
			http.Error(w, "no hop is paused (step mode is off, or the pipeline is between hops)", http.StatusConflict)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	return secure(mux)
}

// secure sets what a page that shows only counts and names still should: it
// loads nothing from elsewhere, and is not framed.
func secure(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

// staticTypes is the Content-Type of each kind of file the page is made of.
var staticTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
}

// serveStatic writes the embedded file web/NAME, or 404 Not Found. It is not
// http.FileServer: ranges, modification times and directory listings are of no
// use to three small files that never change, and FileServer brings about
// 0.1e6 bytes into the binary (its MIME tables, multipart ranges; issue 42).
func serveStatic(w http.ResponseWriter, r *http.Request, name string) {
	body, err := fs.ReadFile(web, "web/"+name)
	ctype, known := staticTypes[path.Ext(name)]
	if err != nil || !known {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.Write(body)
}

func (h *Hub) snapshot() Snapshot {
	s := Snapshot{Command: h.opts.Command, Step: h.opts.Step, Time: time.Now().UTC(), Hops: h.hops(), Recent: h.recent(20)}
	s.UptimeSeconds = s.Time.Sub(h.start).Seconds()
	if h.opts.Pipeline != nil {
		s.Snapshot = h.opts.Pipeline()
	}
	return s
}

// serveEvents is one page's stream. Under one lock it takes the followed key's
// history and joins the pages the Hub offers hops to, so no hop is sent twice or
// missed between the two; then it sends, until the page goes or the Hub closes:
// the counts when they changed (at most every snapshotEvery), each hop on the
// path, each step.
func (h *Hub) serveEvents(w http.ResponseWriter, r *http.Request) {
	if _, ok := w.(http.Flusher); !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	// A stream is the one response that may last: each batch of writes must
	// be taken by the reader within limits.Write (the server's write timeout
	// would end the stream at limits.Write after the request, reader or
	// not), so a stream nobody reads ends there, rather than hold its place
	// for ever. The read timeout does not reach it: net/http clears the read
	// deadline once the request, its body included, is read.
	rc := http.NewResponseController(w)
	flush := func() error {
		_ = rc.SetWriteDeadline(time.Now().Add(limits.Write)) // the next batch's
		return rc.Flush()
	}
	p := newPage(r.URL.Query().Get("follow"))
	p.opened, p.gone = pagesOpened.Add(1), make(chan struct{})
	h.mu.Lock()
	if len(h.pages) >= maxPages {
		// The newest page is the one somebody just opened: it replaces the
		// oldest stream, which may be one that never reads.
		var oldest *page
		for q := range h.pages {
			if oldest == nil || q.opened < oldest.opened {
				oldest = q
			}
		}
		delete(h.pages, oldest)
		close(oldest.gone)
	}
	var past []Hop
	if p.follow != nil {
		past = h.historyLocked(p.follow)
	}
	h.pages[p] = struct{}{}
	step := h.stepLocked()
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.pages, p)
		h.mu.Unlock()
	}()

	w.Header().Set("Content-Type", "text/event-stream")
	_ = rc.SetWriteDeadline(time.Now().Add(limits.Write))
	w.WriteHeader(http.StatusOK)
	var last []byte // the counts last sent, without their time
	sendSnapshot := func() error {
		s := h.snapshot()
		counts := s
		counts.Time, counts.UptimeSeconds = time.Time{}, 0
		b, _ := json.Marshal(counts)
		if bytes.Equal(b, last) {
			return nil
		}
		last = b
		return send(w, "snapshot", s)
	}
	err := sendSnapshot()
	for _, hop := range past {
		err = errors.Join(err, send(w, "hop", hop))
	}
	if h.opts.Step {
		err = errors.Join(err, send(w, "step", step))
	}
	err = errors.Join(err, flush())
	tick := time.NewTicker(snapshotEvery)
	defer tick.Stop()
	for err == nil {
		select {
		case <-r.Context().Done():
			return
		case <-h.closed:
			return
		case <-p.gone:
			return // replaced by a newer page
		case hop := <-p.hops:
			err = send(w, "hop", hop)
		case s := <-p.steps:
			err = send(w, "step", s)
		case <-tick.C:
			err = sendSnapshot()
		}
		err = errors.Join(err, flush())
	}
}

// send writes one Server-Sent Event: its name and its JSON on one data line
// (JSON has no raw newlines).
func send(w http.ResponseWriter, event string, v any) error {
	b, err := marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
	return err
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	b, _ := marshal(v) // the page's own types: they marshal
	_, _ = w.Write(append(b, '\n'))
}

// marshal is json.Marshal with every rune that is not printable escaped
// (escapeJSON): what the page's API writes is read on terminals too.
func marshal(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return escapeJSON(b), nil
}

// escapeJSON writes, in JSON that json.Marshal wrote, every rune that is not
// printable as a \u escape. Marshal escapes the C0 controls, U+2028 and
// U+2029 already, but not DEL, the C1 controls (U+009B is a terminal's CSI)
// or the format characters (a bidi override turns what follows around);
// those appear only inside strings, where a \u escape means the same rune, so
// the page reads the same strings and a terminal is told nothing. b is
// returned as it is, without allocating, when it holds none.
func escapeJSON(b []byte) []byte {
	if bytes.IndexFunc(b, notPrint) < 0 {
		return b
	}
	out := make([]byte, 0, len(b)+32)
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if notPrint(r) {
			for _, u := range utf16.Encode([]rune{r}) { // a surrogate pair beyond U+FFFF
				out = fmt.Appendf(out, `\u%04x`, u)
			}
		} else {
			out = append(out, b[:n]...)
		}
		b = b[n:]
	}
	return out
}

// notPrint is the runes escapeJSON escapes. Marshal writes valid UTF-8 (a
// byte of a string that is not becomes \ufffd), so a RuneError here is a
// real U+FFFD, which is printable.
func notPrint(r rune) bool { return !unicode.IsPrint(r) }

// Listen opens addr for the page, by the rule --metrics-addr follows too
// (metrics.Listen): an address without a host (":8080") is loopback, the page
// being for the person at this machine unless they name another interface
// ("0.0.0.0:8080").
func Listen(addr string) (net.Listener, error) {
	ln, err := metrics.Listen(addr)
	if err != nil {
		return nil, fmt.Errorf("--ui %q: %w", addr, err)
	}
	return ln, nil
}

// Serve serves the page on ln until ctx ends, then closes the Hub (a paused
// step goes on), ends the open streams and returns. It answers only requests
// addressed to ln's address, takes state changes only from the page's own
// origin, and bounds its connections (guard.go).
func (h *Hub) Serve(ctx context.Context, ln net.Listener) error {
	srv, ln := limits.Server(guard(ln.Addr(), h.Handler()), ln)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }() // owned here: Close below ends it
	select {
	case err := <-done:
		h.Close()
		return fmt.Errorf("live page: %w", err)
	case <-ctx.Done():
	}
	h.Close() // streams end on h.closed
	shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil {
		srv.Close()
	}
	<-done
	return nil
}
