package listwatch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/kubeconfig"
	"github.com/kubewire/kubewire/apiclient/recording"
)

// RecordOptions say what Record captures and for how long. The zero value records a
// LIST of everything and the watch after it until ctx is done. A plain value.
type RecordOptions struct {
	// Namespace narrows the resource to one namespace; "" records all of them.
	Namespace     string
	LabelSelector string
	FieldSelector string
	// Events stops the recording after this many watch events (bookmarks count);
	// 0 means no limit.
	Events int
	// Duration stops the recording after this long; 0 means no limit.
	Duration time.Duration
	// WatchTimeout is each watch's timeoutSeconds; 0 means 5 minutes. When the
	// server ends a watch, the recording goes on with the next, as a reflector would.
	WatchTimeout time.Duration
	// PageSize is the LIST's limit; 0 means 500, as the reflector's.
	PageSize int64
	// Comments are written at the top of the recording: how it was made.
	Comments []string
	// Transport replaces the one built from the config (tests use the test
	// server's).
	Transport http.RoundTripper
	// Clock times Duration; nil means the real clock.
	Clock apiclient.Clock
}

// Record captures what the API server answers to a reflector's requests — the LIST
// pages at resourceVersion 0, then the watches from the list's resourceVersion — into
// w, in the format of package recording: the bytes as they came off the wire, with
// secrets redacted (recording.Redact). The requests are the reflector's own, so the
// recording replays against a Reflector with default Options unchanged.
//
// When the server ends a watch, the next one starts from the last resourceVersion;
// after a 410 the recorder lists again at that version, as the reflector does. It
// stops when Events or Duration is reached, or ctx is done, and returns nil; any
// other failure is recorded and returned. Write w to a file made by
// recording.Create, which only its owner can read.
func Record(ctx context.Context, cfg *kubeconfig.Config, res apiclient.Resource, w io.Writer, opts RecordOptions) error {
	base := opts.Transport
	if base == nil {
		var err error
		if base, err = cfg.Transport(); err != nil {
			return fmt.Errorf("record %s: %w", res, err)
		}
	}
	if opts.Clock == nil {
		opts.Clock = apiclient.RealClock{}
	}
	if opts.WatchTimeout <= 0 {
		opts.WatchTimeout = 5 * time.Minute
	}
	if opts.PageSize == 0 {
		opts.PageSize = 500
	}
	comments := append([]string{fmt.Sprintf("recorded by kubewire %s (listwatch.Record): %s, namespace %q, label selector %q, field selector %q, at %s",
		apiclient.Version, res, opts.Namespace, opts.LabelSelector, opts.FieldSelector, opts.Clock.Now().UTC().Format(time.RFC3339))}, opts.Comments...)
	rw := recording.NewWriter(w, comments...)
	c, err := apiclient.New(cfg, apiclient.Options{Transport: &recording.Transport{Base: base, W: rw}, Clock: opts.Clock})
	if err != nil {
		return fmt.Errorf("record %s: %w", res, err)
	}
	if opts.Duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		timer := opts.Clock.After(opts.Duration)
		go func() {
			select {
			case <-timer:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	rec := recorder{rc: c.Resource(res).Namespace(opts.Namespace), opts: opts}
	err = rec.run(ctx)
	if ferr := rw.Flush(); err == nil {
		err = ferr
	}
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("record %s: %w", res, err)
	}
	return nil
}

// recorder drives the requests; the Transport under its client does the recording.
type recorder struct {
	rc     apiclient.ResourceClient
	opts   RecordOptions
	events int
}

func (r *recorder) run(ctx context.Context) error {
	rv, err := r.list(ctx, "0", r.opts.PageSize)
	for err == nil {
		if rv, err = r.watch(ctx, rv); apiclient.IsGone(err) {
			rv, err = r.list(ctx, rv, 0)
		}
	}
	if errors.Is(err, errEnough) {
		return nil
	}
	return err
}

var errEnough = errors.New("recorded enough events")

// list reads every page and returns the list's resourceVersion.
func (r *recorder) list(ctx context.Context, rv string, limit int64) (string, error) {
	opts := apiclient.ListOptions{LabelSelector: r.opts.LabelSelector, FieldSelector: r.opts.FieldSelector, ResourceVersion: rv, Limit: limit}
	listRV := ""
	for {
		meta, err := r.rc.ListEach(ctx, opts, apiclient.DecodeOptions{}, func(*apiclient.Object) error { return nil })
		if err != nil {
			return "", err
		}
		if listRV == "" {
			listRV = meta.ResourceVersion
		}
		if meta.Continue == "" {
			return listRV, nil
		}
		opts.Continue, opts.ResourceVersion = meta.Continue, ""
	}
}

// watch records one watch and returns the last resourceVersion it saw; a nil error
// means the server ended the watch normally.
func (r *recorder) watch(ctx context.Context, rv string) (string, error) {
	w, err := r.rc.Watch(ctx, apiclient.WatchOptions{ListOptions: apiclient.ListOptions{
		LabelSelector: r.opts.LabelSelector, FieldSelector: r.opts.FieldSelector,
		ResourceVersion: rv, AllowWatchBookmarks: true, TimeoutSeconds: int64(r.opts.WatchTimeout / time.Second)}})
	if err != nil {
		return rv, err
	}
	defer w.Close() // before the end of the stream, the Transport records "stall"
	for {
		ev, err := w.Next()
		if err == io.EOF {
			return rv, nil
		}
		if apiclient.CodeOf(err) != 0 {
			// An ERROR event: the server ends the stream after it. Reading on to
			// that end records it as the server sent it.
			for i := 0; i < 10; i++ {
				if _, err := w.Next(); err != nil && apiclient.CodeOf(err) == 0 {
					break
				}
			}
			return rv, err
		}
		if err != nil {
			return rv, err
		}
		if v := ev.Object.Metadata.ResourceVersion; v != "" {
			rv = v
		}
		if r.events++; r.opts.Events > 0 && r.events >= r.opts.Events {
			return rv, errEnough
		}
	}
}
