package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/kubewire/kubewire/apiclient/recording"
	"github.com/kubewire/kubewire/listwatch"
)

// runRecord is `kubewire record RESOURCE -o FILE`: what the API server answers to
// a reflector — the LIST, then the watches — written byte for byte to FILE in the
// format of package recording, for apitest to replay in a test. It stops after
// --events N watch events, after --duration D, or when interrupted, and then
// says on stderr, in one line, what the file holds:
//
//	recorded pods in "demo" to pods.rec: 2 requests, 3 objects listed, 2 watch events, 1.2s
//
// The file is made by recording.Create, so only its owner can read it, and every
// body line went through recording.Redact on the way (listwatch.Record does both
// halves of that: this command only opens the file). A recording is meant to be
// committed next to a test, which is why the redaction is not optional.
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
	c, cfg, err := s.connect()
	if err != nil {
		return err
	}
	// Discovery, so that RESOURCE may be anything kubectl accepts (po, deploy,
	// a CRD's short name); the recording then holds only the list and the watches.
	res, err := s.listedAndWatched(ctx, c, "recorded")
	if err != nil {
		return err
	}
	ns := ""
	if res.Namespaced {
		ns = s.namespace(cfg)
	}
	// Built here rather than left to Record, so that --trace can say when each
	// request goes out: a test (or a reader) learns that the watch has started,
	// and that changes made from now on will be in the file.
	base, err := cfg.Transport()
	if err != nil {
		return err
	}
	if trace := s.tracer(); trace != nil {
		base = tracingTransport{base: base, trace: trace}
	}
	f, err := recording.Create(path)
	if err != nil {
		return err
	}
	start := time.Now()
	err = listwatch.Record(ctx, cfg, res, f, listwatch.RecordOptions{
		Namespace: ns, LabelSelector: s.str("selector"), FieldSelector: s.str("field-selector"),
		Events: s.integer("events", 0), Duration: s.duration("duration"), Transport: base,
		Comments: []string{"kubewire record " + res.String()},
	})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	took := time.Since(start).Round(time.Millisecond)
	// Read back what was written: the summary then describes the file, not what
	// the recorder believes it wrote.
	rec, err := recording.Open(path)
	if err != nil {
		return fmt.Errorf("read back %s: %w", path, err)
	}
	listed, events := countRecorded(rec)
	where := "in every namespace"
	if ns != "" {
		where = fmt.Sprintf("in %q", ns)
	} else if !res.Namespaced {
		where = "(cluster-scoped)"
	}
	fmt.Fprintf(s.env.Stderr, "recorded %s %s to %s: %d requests, %d objects listed, %d watch events, %v\n",
		res, where, path, len(rec.Exchanges), listed, events, took)
	return nil
}

// countRecorded counts the objects in a recording's LIST answers and the event
// lines of its watches. It looks at the request, not the body, to tell the two
// apart: a watch is the request with watch=true.
func countRecorded(rec *recording.Recording) (listed, events int) {
	for _, e := range rec.Exchanges {
		if e.Status != http.StatusOK {
			continue
		}
		if isWatchTarget(e.Target) {
			events += len(e.Lines)
			continue
		}
		for _, l := range e.Lines {
			listed += countItems(l)
		}
	}
	return listed, events
}

// tracingTransport prints "record GET TARGET" as each request leaves, under
// --trace. It sits below the recorder's own transport, so it sees what is sent.
// Safe for concurrent use, as its base is.
type tracingTransport struct {
	base  http.RoundTripper
	trace func(string)
}

func (t tracingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	verb := "LIST"
	if req.URL.Query().Get("watch") == "true" {
		verb = "WATCH"
	}
	t.trace("record " + verb + " " + req.URL.RequestURI())
	return t.base.RoundTrip(req)
}

// isWatchTarget tells a watch request from a LIST by its query.
func isWatchTarget(target string) bool {
	u, err := url.Parse(target)
	return err == nil && u.Query().Get("watch") == "true"
}

// countItems is the length of a LIST body's items; 0 for anything else.
func countItems(line []byte) int {
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	if json.Unmarshal(line, &list) != nil {
		return 0
	}
	return len(list.Items)
}
