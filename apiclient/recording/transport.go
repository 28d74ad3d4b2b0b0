package recording

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
)

// Transport records every exchange that passes through it into W: the request line,
// the status, and the body line by line as the client reads it, each line passed
// through Redact — RedactSecrets when the request names the secrets resource
// (secretsRequest), however the answer looks. It sits between apiclient and the
// real transport, so what it keeps is what came off the wire (after TLS and gzip),
// not what apiclient made of it.
//
// Every way a body's bytes reach the recording goes through that rule: whole lines,
// the last line of a body without a newline, the line a cut connection left
// unfinished, an error's body (a Status) as any other. Past a line that did not
// parse and was replaced whole, every later line of that body that does not parse
// is replaced whole too (a server that splits a document over lines names a
// Secret's kind on one line and its data on the next). The note of a request that
// got no answer quotes its error, which may quote the server (net/http quotes a
// malformed status line): for the secrets resource only an error that holds no
// byte of the server's is quoted, and for any other the note passes through Redact.
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
	secrets := secretsRequest(req.URL)
	if err != nil {
		t.W.End(Close, 0, "no answer: "+failure(req, err, secrets))
		return nil, err
	}
	retry, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
	t.W.Status(resp.StatusCode, retry)
	watch := req.URL.Query().Get("watch")
	resp.Body = &teeBody{body: resp.Body, w: t.W, custom: t.Redact, secrets: secrets, finite: watch != "true" && watch != "1"}
	return resp, nil
}

// failure is what the recording says of a request's error. An error may quote
// what the server sent; for the secrets resource only one that cannot is kept —
// the client gave up (its context's cause), or no connection was made or kept
// (a *net.OpError: addresses and the system's words) — and any other is replaced
// by its length. For another resource the text passes through Redact, as a line
// that does not parse.
func failure(req *http.Request, err error, secrets bool) string {
	text := err.Error()
	var op *net.OpError
	switch {
	case !secrets:
		if _, whole := redact([]byte(text), false); whole {
			return fmt.Sprintf("(%d bytes of error redacted: it mentions a Secret or a credential)", len(text))
		}
	case req.Context().Err() != nil && errors.Is(err, context.Cause(req.Context())),
		errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded), errors.As(err, &op):
	default:
		return fmt.Sprintf("(%d bytes of error redacted: it may quote an answer of the secrets resource)", len(text))
	}
	return text
}

// maxLine is MaxLine, the longest line the tee keeps (a variable for tests): a
// line still without its end past it is not recorded, and neither is the rest
// of its body, so that what the tee holds of a body is bounded as what the
// client holds is — a LIST is one line, and a list may reach apiclient's
// ListLimits.Bytes (1 GiB by default), four times MaxLine.
var maxLine = MaxLine

// teeBody records a response body as it is read.
type teeBody struct {
	body io.ReadCloser
	w    *Writer
	// custom, when set, redacts every line (Transport.Redact); else the line
	// rule, RedactSecrets's with secrets.
	custom  func([]byte) []byte
	secrets bool

	// finite: not a watch. A decoder stops reading at the end of the JSON it wants,
	// before the body's last newline and EOF; Close reads the rest of a finite body,
	// so that it is recorded as ended rather than as abandoned.
	finite bool

	mu      sync.Mutex // Close may come from another goroutine than Read
	partial []byte     // the start of a line not yet complete
	ended   bool
	tainted bool // a line did not parse and was replaced whole
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
		if i > maxLine || i < 0 && len(b.partial) > maxLine { // no recording could hold the line: stop keeping it
			b.end(Stall, 0, fmt.Sprintf("not recorded past here: a line longer than %d bytes (recording.MaxLine)", maxLine))
			return n, err
		}
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

// redact is the line rule for one line of this body; called with mu held.
func (b *teeBody) redact(line []byte) []byte {
	if b.custom != nil {
		return b.custom(line)
	}
	if b.tainted {
		if _, err := parseTree(line); err != nil {
			return redactedLine(line, "after a line that did not parse and was redacted")
		}
	}
	out, whole := redact(line, b.secrets)
	b.tainted = b.tainted || whole
	return out
}

// end is called with mu held.
func (b *teeBody) end(e End, cutAt int, note string) {
	b.ended = true
	b.partial = nil
	b.w.End(e, cutAt, note)
}

// secretsRequest tells whether a request names the core secrets resource — a
// list, a watch or one Secret, in a namespace or across all, by the path of
// today (/api/v1/namespaces/NS/secrets?watch=true) or the old watch prefix
// (/api/v1/watch/secrets) — wherever a proxy's path prefix puts /api/v1, and
// whichever of the path as sent and the path decoded says so (a namespace
// "a%2Fb" reads as two segments decoded and one escaped).
func secretsRequest(u *url.URL) bool {
	return secretsPath(u.Path) || secretsPath(u.EscapedPath())
}

// secretsPath tells whether one form of a path names the secrets resource:
// whether any /api/v1 in it is followed by [watch/][namespaces/NS/]secrets.
func secretsPath(path string) bool {
	segs := strings.Split(path, "/")
	for i := 0; i+2 < len(segs); i++ {
		if segs[i] != "api" || segs[i+1] != "v1" {
			continue
		}
		rest := segs[i+2:]
		if rest[0] == "watch" && len(rest) > 1 {
			rest = rest[1:]
		}
		if rest[0] == "namespaces" && len(rest) > 2 {
			rest = rest[2:]
		}
		if rest[0] == "secrets" {
			return true
		}
	}
	return false
}
