package cli

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/kubewire/kubewire/apiclient/recording"
	"github.com/kubewire/kubewire/listwatch"
)

// runRecord is `kubewire record RESOURCE -o FILE`: what the API server answers to
// an informer's reflector — its GET /version, the list (a LIST from Kubernetes
// 1.33, a streaming list before), then the watches — written byte for byte to
// FILE in the format of package recording, for apitest to replay in a test into
// an informer or a Manager with default options (listwatch.Record). It stops
// after --events N watch events (those after the list: a streaming list's
// initial events are its objects), after --duration D, or when interrupted, and
// then says on stderr, in one line, what the file holds:
//
//	recorded pods in "demo" to pods.rec: 3 requests, 3 objects listed, 2 watch events, 1.2s
//
// Under --trace a line goes out with each request ("record LIST …", "record
// WATCH …") and one when the first list is complete ("record synced: N objects
// listed"): a change made on the server from then on is a watch event in the
// file, on every release (a test, or a reader, waits for that line).
//
// The counts are listwatch.Record's, made as the bytes were written, so `-o -`
// (standard output) and a named pipe get the same line as a file; nothing is read
// back. A new file is made by recording.Create, so only its owner can read it; an
// existing one keeps its mode, and what is not a regular file (/dev/null, a pipe)
// is written as it is. Every body line went through recording.Redact on the way
// (RedactSecrets for the secrets resource: what was asked for decides). A
// recording is meant to be committed next to a test, which is why the redaction
// is not optional.
//
// Its designed end is --events N, --duration D or, without either, a signal
// once the first list is complete: exit 0. Stopped short of that — a signal
// before N events or before D, or before the first list was complete, whatever
// the limits — it exits 130 (SIGINT) or 143 (SIGTERM), and the line says so:
// "interrupted: recorded …", or "interrupted before the first list was
// complete: recorded … (partial: no list to replay)". What was written stays a
// recording that parses; one without a complete list also says so in itself
// (listwatch.Record's closing comment). --duration over before any list was
// complete (a server that never answered it) is a failure: exit 1, since the
// file replays nothing.
func runRecord(ctx context.Context, s *session) error {
	path := s.str("output")
	if path == "" {
		return usagef("record needs a file to write: -o FILE")
	}
	if s.set("events") && s.integer("events", 0) <= 0 {
		return usagef("--events must be a positive number, got %q", s.str("events"))
	}
	if s.set("duration") && s.duration("duration") <= 0 {
		return usagef("--duration must be a positive duration such as 30s, got %q", s.str("duration"))
	}
	// Discovery, so that RESOURCE may be anything kubectl accepts (po, deploy,
	// a CRD's short name); the recording then holds only the list and the watches.
	_, cfg, res, err := s.target(ctx)
	if err != nil {
		return err
	}
	if err := listedAndWatched(res, "recorded"); err != nil {
		return err
	}
	ns := ""
	if res.Namespaced {
		ns = s.namespace(cfg)
	}
	// Built here rather than left to Record, so that --trace can say when each
	// request goes out, and when the list is complete: a test (or a reader)
	// learns that changes made from now on will be watch events in the file.
	base, err := cfg.Transport()
	if err != nil {
		return err
	}
	var synced func(listwatch.Recorded)
	if trace := s.traceLine(); trace != nil {
		base = tracingTransport{base: base, trace: trace}
		trace("record open " + path)
		synced = func(r listwatch.Recorded) { trace(fmt.Sprintf("record synced: %d objects listed", r.Listed)) }
	}
	out, closeOut, err := openRecording(ctx, s, path)
	if err != nil {
		return err
	}
	start := time.Now()
	sum, err := listwatch.Record(ctx, cfg, res, out, listwatch.RecordOptions{
		Namespace: ns, LabelSelector: s.str("selector"), FieldSelector: s.str("field-selector"),
		Events: s.integer("events", 0), Duration: s.duration("duration"), Transport: base,
		Comments: []string{"kubewire record " + res.String()}, OnSynced: synced,
	})
	if cerr := closeOut(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	took := time.Since(start).Round(time.Millisecond)
	stopped := ctx.Err() != nil // a signal, not one of record's own limits
	if !sum.Synced && !stopped {
		return fmt.Errorf("record %s: no complete list within %v: %s holds no list to replay", res, s.duration("duration"), path)
	}
	where := "in every namespace"
	if ns != "" {
		where = fmt.Sprintf("in %q", ns)
	} else if !res.Namespaced {
		where = "(cluster-scoped)"
	}
	to := path
	if path == "-" {
		to = "standard output"
	}
	// The signal came before the first list was complete, or before a limit
	// asked for was reached: the file holds what came until then, and the exit
	// status says it is short (130, 143).
	var short error
	prefix, suffix := "", ""
	events, duration := s.integer("events", 0), s.duration("duration")
	switch {
	case stopped && !sum.Synced:
		short, prefix, suffix = errStopped, "interrupted before the first list was complete: ", " (partial: no list to replay)"
	case stopped && (events > 0 && sum.Events < events || duration > 0 && time.Since(start) < duration):
		short, prefix = errStopped, "interrupted: "
	}
	fmt.Fprintf(s.env.Stderr, "%srecorded %s %s to %s: %d requests, %d objects listed, %d watch events, %v%s\n",
		prefix, res, where, to, sum.Requests, sum.Listed, sum.Events, took, suffix)
	return short
}

// openRecording opens where the recording goes: standard output for "-", else
// the file recording.Create opens (a new file only its owner reads; nothing it did
// not make gets chmodded). A named pipe's open waits for a reader, so it is done
// aside: Ctrl-C still ends the command while it waits.
func openRecording(ctx context.Context, s *session, path string) (io.Writer, func() error, error) {
	if path == "-" {
		return s.env.Stdout, func() error { return nil }, nil
	}
	type opened struct {
		f   *os.File
		err error
	}
	done := make(chan opened, 1)
	go func() { // ends when the open does; nobody waits for it after ctx is done
		f, err := recording.Create(path)
		done <- opened{f, err}
	}()
	select {
	case o := <-done:
		if o.err != nil {
			return nil, nil, o.err
		}
		return o.f, o.f.Close, nil
	case <-ctx.Done():
		return nil, nil, fmt.Errorf("record: waited to open %s: %w", path, context.Cause(ctx))
	}
}

// tracingTransport prints "record LIST TARGET" or "record WATCH TARGET" (a
// streaming list is a WATCH) as each request leaves, under --trace, and "record
// GET /version" for the version asked first. It sits below the recorder's own
// transport, so it sees what is sent. Safe for concurrent use, as its base is.
type tracingTransport struct {
	base  http.RoundTripper
	trace func(string)
}

func (t tracingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	verb := "LIST"
	switch {
	case req.URL.Query().Get("watch") == "true":
		verb = "WATCH"
	case req.URL.Path == "/version":
		verb = "GET"
	}
	t.trace("record " + verb + " " + req.URL.RequestURI())
	return t.base.RoundTrip(req)
}
