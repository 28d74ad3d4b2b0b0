package events

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync/atomic"
	"time"

	"github.com/kubewire/kubewire/apiclient"
)

// The two event types the API accepts.
const (
	Normal  = "Normal"
	Warning = "Warning"
)

// Defaults of Options, and the API's limit on a note.
const (
	DefaultBufferSize    = 1000
	DefaultSeriesWindow  = 6 * time.Minute
	DefaultFlushInterval = 30 * time.Second
	DefaultBurst         = 25
	DefaultRefillEvery   = 5 * time.Minute
	maxNote              = 1024
)

// Ref names the object an event is about: its "regarding" (events.k8s.io) or
// "involvedObject" (core/v1).
type Ref struct {
	APIVersion      string `json:"apiVersion,omitempty"`
	Kind            string `json:"kind,omitempty"`
	Namespace       string `json:"namespace,omitempty"`
	Name            string `json:"name,omitempty"`
	UID             string `json:"uid,omitempty"`
	ResourceVersion string `json:"resourceVersion,omitempty"`
}

// refTo refers to obj: its apiVersion and kind from its Resource, the rest
// from its metadata.
func refTo(obj apiclient.TypedObject) Ref {
	res, meta := obj.Resource(), obj.GetObjectMeta()
	return Ref{APIVersion: res.GroupVersion(), Kind: res.Kind, Namespace: meta.Namespace, Name: meta.Name,
		UID: meta.UID, ResourceVersion: meta.ResourceVersion}
}

// Options tune a Recorder. Controller is required; the rest has defaults.
type Options struct {
	// Controller is the reportingController: who reports, as a qualified name,
	// "kubewire.io/foo". Also core/v1's source.component.
	Controller string
	// Instance is the reportingInstance: which replica; default the hostname.
	Instance string
	// BufferSize bounds the events waiting to be written; default 1000.
	BufferSize int
	// SeriesWindow: a repeat this soon after the last sight of the same event
	// joins its series; default 6 min (client-go's finishTime).
	SeriesWindow time.Duration
	// FlushInterval: how often growing series are written; default 30 s.
	FlushInterval time.Duration
	// Burst and RefillEvery shape the per-object rate limit; default 25, 5 min.
	Burst       int
	RefillEvery time.Duration
	Clock       apiclient.Clock
	Log         *slog.Logger
}

// Stats counts what became of the events a Recorder was given.
type Stats struct {
	Written      uint64 // Events created, or series written
	Dropped      uint64 // the buffer was full
	RateLimited  uint64 // the object was over its rate limit
	WriteFailed  uint64 // the server refused, or could not be reached, after retries
	JoinedSeries uint64 // repeats counted in an existing Event
}

// Recorder writes events. A controller gets one from its Manager
// (controller.Manager.Recorder), which runs it; NewRecorder builds one to Run
// yourself. Safe for concurrent use.
type Recorder struct {
	client *apiclient.Client
	opts   Options
	buf    chan pending
	stats  struct{ written, dropped, limited, failed, joined atomic.Uint64 }
	// What follows belongs to Run's goroutine.
	series  map[seriesKey]*record
	buckets *buckets
	core    bool   // events.k8s.io/v1 is not served: write core/v1 Events
	seq     uint64 // makes names unique when two events share a timestamp
}

// pending is one Eventf call, waiting in the buffer.
type pending struct {
	regarding                 Ref
	eventType, reason, action string
	note                      string
	at                        time.Time
}

// NewRecorder returns a Recorder writing through c. It starts nothing: Run does.
func NewRecorder(c *apiclient.Client, opts Options) *Recorder {
	if opts.Instance == "" {
		opts.Instance, _ = os.Hostname()
	}
	opts.BufferSize = cmp.Or(opts.BufferSize, DefaultBufferSize)
	opts.SeriesWindow = cmp.Or(opts.SeriesWindow, DefaultSeriesWindow)
	opts.FlushInterval = cmp.Or(opts.FlushInterval, DefaultFlushInterval)
	opts.Burst = cmp.Or(opts.Burst, DefaultBurst)
	opts.RefillEvery = cmp.Or(opts.RefillEvery, DefaultRefillEvery)
	if opts.Clock == nil {
		opts.Clock = apiclient.RealClock{}
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	return &Recorder{client: c, opts: opts, buf: make(chan pending, opts.BufferSize),
		series: map[seriesKey]*record{}, buckets: newBuckets(opts.Burst, opts.RefillEvery)}
}

// Eventf records that something happened to regarding — an object of the
// caller's own type, which says its apiVersion and kind (apiclient.TypedObject):
// eventType Normal or
// Warning, reason a short CamelCase word ("Synced", "ErrResourceExists"), action
// what the controller was doing ("Reconcile", "Create"), and the note, a
// sentence, formatted with args. It returns at once; Run writes the Event.
func (r *Recorder) Eventf(regarding apiclient.TypedObject, eventType, reason, action, note string, args ...any) {
	if len(args) > 0 {
		note = fmt.Sprintf(note, args...)
	}
	if len(note) > maxNote {
		note = note[:maxNote-3] + "..."
	}
	select {
	case r.buf <- pending{refTo(regarding), eventType, reason, action, note, r.opts.Clock.Now()}:
	default:
		r.stats.dropped.Add(1)
	}
}

// Stats returns the counts so far.
func (r *Recorder) Stats() Stats {
	return Stats{Written: r.stats.written.Load(), Dropped: r.stats.dropped.Load(), RateLimited: r.stats.limited.Load(),
		WriteFailed: r.stats.failed.Load(), JoinedSeries: r.stats.joined.Load()}
}

// Run writes events until ctx ends, then what is still in the buffer and the
// series that grew since their last write, for at most 5 s more, and returns nil.
// A write under way when ctx ends is finished, not cancelled (each write is
// bounded by writeTimeout): an event taken from the buffer is not lost to a
// shutdown.
func (r *Recorder) Run(ctx context.Context) error {
	if r.opts.Controller == "" {
		return fmt.Errorf("events: Options.Controller (reportingController) is required")
	}
	writes := context.WithoutCancel(ctx)
	flush := r.opts.Clock.After(r.opts.FlushInterval)
	for {
		select {
		case p := <-r.buf:
			r.record(writes, p)
		case <-flush:
			r.flush(writes, r.opts.Clock.Now())
			flush = r.opts.Clock.After(r.opts.FlushInterval)
		case <-ctx.Done():
			final, cancel := context.WithTimeout(writes, 5*time.Second)
			defer cancel()
			for drained := false; !drained; {
				select {
				case p := <-r.buf:
					r.record(final, p)
				default:
					drained = true
				}
			}
			r.flush(final, time.Time{})
			return nil
		}
	}
}
