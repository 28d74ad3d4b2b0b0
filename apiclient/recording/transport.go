package recording

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// Transport records every exchange that passes through it into W: the request line,
// the status, and the body line by line as the client reads it, each line passed
// through Redact (RedactSecrets when the request is for the secrets resource). It sits between apiclient and the real transport, so what it keeps
// is what came off the wire (after TLS and gzip), not what apiclient made of it.
//
//	client, _ := apiclient.New(cfg, apiclient.Options{Transport: &recording.Transport{Base: base, W: w}})
//
// How a body ends is recorded too: read to EOF is "end"; a read error after a whole
// line is "close", in the middle of one "cut N"; closed by the client before EOF
// (the recorder stopping a watch) is "stall", since the server had not ended it.
//
// A Transport is safe for concurrent use, but a recording only reads well when its
// client makes one request at a time, as the recorder does: the lines of two
// concurrent bodies would interleave. The zero value is not usable: set Base and W.
type Transport struct {
	Base http.RoundTripper
	W    *Writer
	// Redact replaces Redact when set (for tests of the recorder itself).
	Redact func(line []byte) []byte
}

// RoundTrip records req's request line, sends it, and wraps the response body so
// that reading it records it.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.W.Request(req.Method, req.URL.RequestURI())
	resp, err := t.Base.RoundTrip(req)
	if err != nil {
		t.W.End(Close, 0, "no answer: "+err.Error())
		return nil, err
	}
	retry, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
	t.W.Status(resp.StatusCode, retry)
	redact := t.Redact
	switch {
	case redact != nil:
	case secretsPath(req.URL.Path):
		redact = RedactSecrets
	default:
		redact = Redact
	}
	watch := req.URL.Query().Get("watch")
	resp.Body = &teeBody{body: resp.Body, w: t.W, redact: redact, finite: watch != "true" && watch != "1"}
	return resp, nil
}

// teeBody records a response body as it is read.
type teeBody struct {
	body   io.ReadCloser
	w      *Writer
	redact func([]byte) []byte

	// finite: not a watch. A decoder stops reading at the end of the JSON it wants,
	// before the body's last newline and EOF; Close reads the rest of a finite body,
	// so that it is recorded as ended rather than as abandoned.
	finite bool

	mu      sync.Mutex // Close may come from another goroutine than Read
	partial []byte     // the start of a line not yet complete
	ended   bool
}

func (b *teeBody) Read(p []byte) (int, error) {
	n, err := b.body.Read(p)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ended {
		return n, err
	}
	b.partial = append(b.partial, p[:n]...)
	for {
		i := bytes.IndexByte(b.partial, '\n')
		if i < 0 {
			break
		}
		b.w.Line(b.redact(bytes.TrimSuffix(b.partial[:i], []byte("\r"))))
		b.partial = b.partial[i+1:]
	}
	switch {
	case err == io.EOF:
		if len(b.partial) > 0 { // a last line without a newline is still whole
			b.w.Line(b.redact(b.partial))
		}
		b.end(Finished, 0, "")
	case err != nil && len(b.partial) > 0:
		line := b.redact(b.partial)
		b.w.Line(line)
		b.end(Cut, len(line), "")
	case err != nil:
		b.end(Close, 0, "")
	}
	if len(b.partial) == 0 {
		b.partial = nil // let a big consumed buffer go
	}
	return n, err
}

// Close records "stall" when a watch was not read to its end: the client stopped
// listening, not the server talking. A finite body is read to its end first.
func (b *teeBody) Close() error {
	if b.finite {
		io.Copy(io.Discard, io.LimitReader(b, MaxLine))
	}
	b.mu.Lock()
	if !b.ended {
		note := "the client stopped reading here"
		if len(b.partial) > 0 {
			note += ", in the middle of a line"
		}
		b.end(Stall, 0, note)
	}
	b.mu.Unlock()
	return b.body.Close()
}

// end is called with mu held.
func (b *teeBody) end(e End, cutAt int, note string) {
	b.ended = true
	b.partial = nil
	b.w.End(e, cutAt, note)
}

// secretsPath tells whether a request path names the core secrets resource — a
// list, a watch or one Secret, in a namespace or across all — wherever the
// server's own path prefix puts /api/v1 (a proxy may serve it under one).
func secretsPath(path string) bool {
	segs := strings.Split(path, "/")
	for i := 0; i+2 < len(segs); i++ {
		if segs[i] != "api" || segs[i+1] != "v1" {
			continue
		}
		rest := segs[i+2:]
		if rest[0] == "namespaces" && len(rest) > 2 {
			rest = rest[2:]
		}
		return rest[0] == "secrets"
	}
	return false
}
