package apitest

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/kubewire/kubewire/apiclient/recording"
)

// replayState is the script and how far it has been played.
type replayState struct {
	script []recording.Exchange
	// version is the recording's GET /version exchange, taken out of the
	// script: answered whenever it is asked (versionExchange).
	version *recording.Exchange
	next    int
	errs    []error
	extra   int // requests that came after the last exchange

	done      chan struct{} // closed once the client moved past the script, or on a mismatch
	doneOnce  sync.Once
	closed    chan struct{} // closed by Server.Close: ends stalls and held requests
	closeOnce sync.Once
}

// Replay makes the server answer from rec from now on: the first request gets the
// first exchange, and so on. Each request must match its exchange — the same
// method, path and query parameters, timeoutSeconds excepted (the client picks it at
// random) — or the server answers 400 and Err reports it.
//
// GET /version is not part of the script: a recording's GET /version exchange
// (listwatch.Record writes one where the server answered it) is taken out and
// answered to every GET /version, whenever it comes, as often as it comes; with
// none, GET /version answers 404 NotFound. Whether a client asks, and how often,
// is the client's choice, not the server's state (apiclient.Client asks once and
// keeps the answer; a Reflector with ListPaged never asks): a default informer
// asks it before its first list, learns the release the recording was made
// from, and lists as the recorder did, while a Reflector that does not ask
// replays the same file. The release never changes a reply of the script.
//
// A request that comes after the last exchange is held open, answered with nothing,
// until the client gives up: the script is over, and nothing may happen that it does
// not say. That request closes Done, since it shows the client has read everything
// the script sent.
//
// Call Replay once, before the first request; further calls append to the script.
func (s *Server) Replay(rec *recording.Recording) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.replay == nil {
		s.replay = &replayState{done: make(chan struct{}), closed: make(chan struct{})}
	}
	for _, ex := range rec.Exchanges {
		if isVersion(ex.Method, ex.Target) {
			s.replay.version = &ex
			continue
		}
		s.replay.script = append(s.replay.script, ex)
	}
}

// isVersion reports whether a request is GET /version.
func isVersion(method, target string) bool {
	path, _, _ := strings.Cut(target, "?")
	return method == http.MethodGet && path == "/version"
}

// Done is closed when a request arrives after the last scripted exchange — the
// client has taken in everything and moved on — or when a request did not match
// the script (see Err). It is nil until Replay is called.
func (s *Server) Done() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.replay == nil {
		return nil
	}
	return s.replay.done
}

// Err reports the requests that did not match the script, and a script that was
// not played to its end; nil when every exchange was answered as written.
func (s *Server) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.replay == nil {
		return nil
	}
	errs := slices.Clone(s.replay.errs)
	if n := len(s.replay.script) - s.replay.next; n > 0 {
		errs = append(errs, fmt.Errorf("apitest: %d of %d scripted exchanges were never requested", n, len(s.replay.script)))
	}
	return errors.Join(errs...)
}

// Played returns how many scripted exchanges have been answered, and how many
// requests came after the script ended.
func (s *Server) Played() (answered, extra int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.replay == nil {
		return 0, 0
	}
	return s.replay.next, s.replay.extra
}

func (s *Server) serveReplay(rs *replayState, w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if isVersion(r.Method, r.URL.RequestURI()) {
		ex := rs.version
		s.mu.Unlock()
		answerVersion(w, ex)
		return
	}
	if rs.next >= len(rs.script) {
		rs.extra++
		s.mu.Unlock()
		rs.finish()
		rs.hold(r)
		return
	}
	i, ex := rs.next, &rs.script[rs.next]
	if err := matches(ex, r); err != nil {
		rs.errs = append(rs.errs, fmt.Errorf("apitest: request %d, %s %s: %w", i, r.Method, r.URL.RequestURI(), err))
		s.mu.Unlock()
		rs.finish()
		writeStatus(w, http.StatusBadRequest, "BadRequest", "apitest: the request does not match the script: %v", err)
		return
	}
	rs.next++
	s.mu.Unlock()
	s.play(rs, w, r, i, ex)
}

// play writes one scripted response, flushing after every line as the API server
// does, and ends it the way the script says.
func (s *Server) play(rs *replayState, w http.ResponseWriter, r *http.Request, i int, ex *recording.Exchange) {
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	if ex.Status == 0 { // no answer at all
		s.reply(Reply{Index: i, Exchange: ex})
		if ex.End == recording.Stall {
			rs.hold(r)
			return
		}
		panic(http.ErrAbortHandler) // Close: drop the connection
	}
	w.Header().Set("Content-Type", "application/json")
	if ex.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(ex.RetryAfter))
	}
	w.WriteHeader(ex.Status)
	flush()
	var rv string
	for j, line := range ex.Lines {
		if ex.End == recording.Cut && j == len(ex.Lines)-1 {
			w.Write(line[:ex.CutAt])
			flush()
			break
		}
		w.Write(append(line[:len(line):len(line)], '\n'))
		flush()
		if v := resourceVersionOf(line); v != "" {
			rv = v
		}
	}
	s.reply(Reply{Index: i, Exchange: ex, ResourceVersion: rv})
	switch ex.End {
	case recording.Close, recording.Cut:
		// The handler gives up without ending the chunked body: net/http closes the
		// connection, and the client reads an unexpected EOF, as when a real server
		// dies or a proxy drops the stream.
		panic(http.ErrAbortHandler)
	case recording.Stall:
		rs.hold(r)
	}
}

func (s *Server) reply(rep Reply) {
	if s.OnReply != nil {
		s.OnReply(rep)
	}
}

// hold keeps a response open, sending nothing, until the client leaves or the
// server closes, and then drops the connection. Returning normally instead would
// make net/http answer 200 with an empty body — an answer the client could still
// read if it was waiting, or racing its own cancellation.
func (rs *replayState) hold(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-rs.closed:
	}
	panic(http.ErrAbortHandler)
}

func (rs *replayState) finish() { rs.doneOnce.Do(func() { close(rs.done) }) }

// matches checks a request against its exchange.
func matches(ex *recording.Exchange, r *http.Request) error {
	want, err := url.ParseRequestURI(ex.Target)
	if err != nil {
		return fmt.Errorf("the script's target %q: %w", ex.Target, err)
	}
	if r.Method != ex.Method || r.URL.Path != want.Path {
		return fmt.Errorf("want %s %s", ex.Method, ex.Target)
	}
	got, wantQ := r.URL.Query(), want.Query()
	for _, q := range []url.Values{got, wantQ} {
		for k := range q {
			if k == "timeoutSeconds" {
				continue
			}
			if !slices.Equal(got[k], wantQ[k]) {
				return fmt.Errorf("%s=%q, want %q (script: %s)", k, got.Get(k), wantQ.Get(k), ex.Target)
			}
		}
	}
	return nil
}

// resourceVersionOf reads metadata.resourceVersion of a LIST, or of a watch
// event's object.
func resourceVersionOf(line []byte) string {
	var doc struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
		Object struct {
			Metadata struct {
				ResourceVersion string `json:"resourceVersion"`
			} `json:"metadata"`
		} `json:"object"`
	}
	if json.Unmarshal(line, &doc) != nil {
		return ""
	}
	if doc.Object.Metadata.ResourceVersion != "" {
		return doc.Object.Metadata.ResourceVersion
	}
	return doc.Metadata.ResourceVersion
}

// answerVersion answers GET /version from the recording's exchange, or 404
// when it holds none.
func answerVersion(w http.ResponseWriter, ex *recording.Exchange) {
	if ex == nil || ex.Status == 0 {
		writeStatus(w, http.StatusNotFound, "NotFound", "apitest: the recording holds no GET /version")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(ex.Status)
	for _, line := range ex.Lines {
		w.Write(append(line[:len(line):len(line)], '\n'))
	}
}
