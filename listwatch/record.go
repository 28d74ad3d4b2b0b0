package listwatch

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/kubeconfig"
	"github.com/kubewire/kubewire/apiclient/recording"
)

// RecordOptions say what Record captures and for how long. The zero value records
// the list of everything (the one a default informer sends: Record) and the
// watch after it until ctx is done. A plain value.
type RecordOptions struct {
	// Namespace narrows the resource to one namespace; "" records all of them.
	Namespace     string
	LabelSelector string
	FieldSelector string
	// Events stops the recording after this many watch events (bookmarks
	// count) that came after a list was complete; 0 means no limit. A streaming
	// list's initial events and its initial-events-end bookmark are the list's
	// (Recorded.Listed), not events.
	Events int
	// Duration stops the recording after this long; 0 means no limit.
	Duration time.Duration
	// WatchTimeout is the Reflector's MinWatchTimeout: each watch asks for a
	// timeoutSeconds in [WatchTimeout, 2×WatchTimeout); 0 means 5 minutes. When the
	// server ends a watch, the recording goes on with the next.
	WatchTimeout time.Duration
	// PageSize is the LIST's limit, as the Reflector's: 0 means 500, negative no
	// limit.
	PageSize int64
	// Comments are written at the top of the recording: how it was made.
	Comments []string
	// Transport replaces the one built from the config (tests use the test
	// server's).
	Transport http.RoundTripper
	// Clock times Duration and is the Reflector's Clock; nil means the real clock.
	Clock apiclient.Clock
	// OnSynced, when set, is called once, when the first list is complete (a
	// LIST's last page was read, or a streaming list's initial-events-end
	// bookmark), with what was recorded by then (Synced true, no Events yet).
	// A change made on the server after it was called reaches the recording as
	// a watch event, counted in Events, never inside the list: the watch starts
	// at the list's resourceVersion, or goes on after the bookmark on the same
	// stream. It is called from the goroutine that called Record and should
	// return at once (close a channel, print a line): nothing is read while it
	// runs, and a streaming list's stream is still held to its 1 s silence
	// bound until it returns.
	OnSynced func(Recorded)
}

// Recorded says what a recording holds, counted as it was written: the requests
// made (GET /version included), the objects the lists returned (relists
// included; a streaming list's are its initial events) and the watch events
// after them (bookmarks included, but not a streaming list's initial-events-end
// one). Record returns it only when every byte reached the writer, so it
// describes the file, wherever the file is — a pipe or a terminal cannot be
// read back.
type Recorded struct {
	Requests, Listed, Events int
	// Synced: the first list was complete (a LIST's last page, or a streaming
	// list's initial-events-end bookmark, was read). A recording stopped before
	// that holds no state to replay a Reflector from, and says so in a comment
	// of its own.
	Synced bool
}

// Record captures what the API server answers to an informer's Reflector — its
// GET /version, the first list, the watches from the list's resourceVersion,
// the relists after a 410 — into w, in the format of package recording: the
// bytes as they came off the wire, with secrets redacted (recording.Redact). It
// runs a Reflector with default Options (but PageSize and WatchTimeout) over a
// client whose transport is a recording.Transport, into a Sink that keeps
// nothing, and gives it the server's answer to GET /version as an informer's is
// given it (Options.ServerVersion; controller/informer's ReflectorOptions). So
// it lists as ListCheapest lists on that release, and the recording replays into
// an informer or a controller.Manager with default options, the replay server
// answering the /version it holds (apitest.Server.Replay):
//
//   - Kubernetes 1.33 and later: one LIST of the latest state, then the watch
//     from its resourceVersion.
//   - Before 1.33: a streaming list — a watch with sendInitialEvents=true,
//     resourceVersionMatch=NotOlderThan and allowWatchBookmarks — whose ADDED
//     events are the objects, then the bookmark annotated
//     k8s.io/initial-events-end, and then, on the same stream, the watch.
//   - A server that does not answer /version (apitest's live mode): nothing of
//     /version is recorded, and the Reflector lists with LIST at
//     resourceVersion 0, as a Reflector without a ServerVersion does; such a
//     recording replays into that Reflector, or an informer with ListPaged.
//
// A streaming list's initial events and its initial-events-end bookmark belong
// to the list: Recorded.Listed counts them, Events (the option and the count)
// counts only the watch events after a list was complete, and Recorded.Synced
// turns true at the bookmark, when OnSynced is called. A caller that changes
// objects while recording makes its changes after OnSynced, so that each is one
// watch event in the file whatever the release (one made earlier, while a
// streaming list's initial events come, may be among them or after them).
//
// It stops when Events or Duration is reached, or ctx is done, and returns nil
// (Recorded.Synced says whether the first list was complete by then; when it was
// not, the recording ends with a comment saying so, "# stopped before the first
// list was complete: …", so that the file tells whoever finds it). At
// the first failure the Reflector would back off from (a refused request, a cut
// stream, a 410 right after a list), it stops and returns that failure, which the
// recording holds too. A watch the Reflector closed itself — at the Events limit,
// when ctx was done, after an ERROR event — ends in the recording as a stall: the
// client stopped reading, the server had not ended it. Write w to a file made by
// recording.Create, which only its owner can read.
func Record(ctx context.Context, cfg *kubeconfig.Config, res apiclient.Resource, w io.Writer, opts RecordOptions) (Recorded, error) {
	base := opts.Transport
	if base == nil {
		var err error
		if base, err = cfg.Transport(); err != nil {
			return Recorded{}, fmt.Errorf("record %s: %w", res, err)
		}
	}
	if opts.Clock == nil {
		opts.Clock = apiclient.RealClock{}
	}
	comments := append([]string{fmt.Sprintf("recorded by kubewire %s (listwatch.Record): %s, namespace %q, label selector %q, field selector %q, at %s",
		apiclient.Version, res, opts.Namespace, opts.LabelSelector, opts.FieldSelector, opts.Clock.Now().UTC().Format(time.RFC3339))}, opts.Comments...)
	rw := recording.NewWriter(w, comments...)
	var requests atomic.Int64
	counted := roundTripFunc(func(req *http.Request) (*http.Response, error) {
		requests.Add(1)
		return base.RoundTrip(req)
	})
	c, err := apiclient.New(cfg, apiclient.Options{Transport: &recording.Transport{Base: counted, W: rw}, Clock: opts.Clock})
	if err != nil {
		return Recorded{}, fmt.Errorf("record %s: %w", res, err)
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	if opts.Duration > 0 {
		timer := opts.Clock.After(opts.Duration)
		go func() { // owned by Record: ends with ctx, which Record cancels on return
			select {
			case <-timer:
				stop()
			case <-ctx.Done():
			}
		}()
	}
	// After the timer: a server that never answers /version is bounded by
	// Duration as a LIST is.
	serverVersion, err := recordVersion(ctx, cfg, base, rw, opts.Clock)
	if err != nil {
		return Recorded{}, fmt.Errorf("record %s: %w", res, err)
	}
	if serverVersion != nil {
		requests.Add(1)
	}
	// OnStep and the sink are called from Run's goroutine, which is this one:
	// sum, listing and failed need no lock.
	var r *Reflector
	var failed error
	sum := Recorded{}
	listing := false // a streaming list's initial events are coming: they are the list's
	onStep := func(s Step) {
		switch s.Op {
		case OpWatch:
			listing = s.Initial
		case OpListed, OpFallback:
			listing = false
		case OpAdd, OpUpdate, OpDelete, OpBookmark:
			if listing { // the initial-events-end bookmark (or one before it)
				return
			}
			if sum.Events++; opts.Events > 0 && sum.Events >= opts.Events {
				stop() // the watch is closed before the next read: it ends as a stall
			}
		case OpBackoff:
			failed = r.Health().LastError
			stop()
		}
	}
	synced := func() {
		if opts.OnSynced != nil {
			now := sum
			now.Requests = int(requests.Load())
			opts.OnSynced(now)
		}
	}
	r = New(c.Resource(res).Namespace(opts.Namespace), countingSink{&sum, synced}, Options{
		Name: "record " + res.String(), LabelSelector: opts.LabelSelector, FieldSelector: opts.FieldSelector,
		PageSize: opts.PageSize, MinWatchTimeout: opts.WatchTimeout, Clock: opts.Clock,
		OnStep: onStep, Logger: slog.New(slog.DiscardHandler), ServerVersion: serverVersion,
	})
	err = r.Run(ctx)
	if err == nil {
		err = failed
	}
	if err == nil && !sum.Synced {
		err = rw.Comment("stopped before the first list was complete: this recording holds no list to replay a Reflector from")
	}
	if ferr := rw.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return Recorded{}, fmt.Errorf("record %s: %w", res, err)
	}
	sum.Requests = int(requests.Load())
	return sum, nil
}

// countingSink is the recorder's Sink: the recording is made by the transport, so
// what the Reflector hands on is dropped, once the objects listed are counted (and
// the first list noted, and told to synced: Replace is handed only a complete
// one).
type countingSink struct {
	sum    *Recorded
	synced func()
}

func (countingSink) Add(*apiclient.Object) error    { return nil }
func (countingSink) Update(*apiclient.Object) error { return nil }
func (countingSink) Delete(*apiclient.Object) error { return nil }
func (s countingSink) Replace(objs []*apiclient.Object, _ string) error {
	s.sum.Listed += len(objs)
	if !s.sum.Synced {
		s.sum.Synced = true
		s.synced()
	}
	return nil
}

// roundTripFunc makes a function an http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// recordVersion asks the server for GET /version, as ListCheapest does before
// the first list, and when the server answers with a release (any: the
// Reflector lists as ListCheapest does on it) it writes the exchange to rw
// (first, as the informer asks it first) and returns the answer for the
// Reflector. Any other answer (a 404 from a server that serves no /version, a
// body that names no release) is not recorded and returns nil: the Reflector
// then lists with LIST at "0" (Record's doc). Only a failure to write rw is an
// error.
func recordVersion(ctx context.Context, cfg *kubeconfig.Config, base http.RoundTripper, rw *recording.Writer, clock apiclient.Clock) (func(context.Context) (apiclient.ServerVersion, error), error) {
	var probe bytes.Buffer
	pw := recording.NewWriter(&probe)
	vc, err := apiclient.New(cfg, apiclient.Options{Transport: &recording.Transport{Base: base, W: pw}, Clock: clock})
	if err != nil {
		return nil, err
	}
	if _, err := vc.ServerVersion(ctx); err != nil {
		return nil, nil
	}
	if err := pw.Flush(); err != nil {
		return nil, err
	}
	rec, err := recording.Parse(&probe)
	if err != nil || len(rec.Exchanges) != 1 {
		return nil, fmt.Errorf("GET /version: the exchange does not read back (%v)", err)
	}
	ex := rec.Exchanges[0]
	if err := rw.Request(ex.Method, ex.Target); err != nil {
		return nil, err
	}
	if err := rw.Status(ex.Status, ex.RetryAfter); err != nil {
		return nil, err
	}
	for _, l := range ex.Lines {
		if err := rw.Line(l); err != nil {
			return nil, err
		}
	}
	if err := rw.End(ex.End, ex.CutAt, ex.EndNote); err != nil {
		return nil, err
	}
	return vc.ServerVersion, nil // kept by vc: the Reflector's ask sends nothing
}
