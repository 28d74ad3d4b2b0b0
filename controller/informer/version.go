package informer

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/metrics"
	"github.com/kubewire/kubewire/fifo"
)

// progress is what the informer knows about how far its store has come: the
// resourceVersion it stands at, and how long each pop took to apply. Both are
// written by processLoop alone and read by anyone.
type progress struct {
	version atomic.Pointer[string]
	latency *metrics.Histogram // seconds per pop: the store write and the hand-off to every listener

	// waiting counts WaitForStoreVersion's callers, so that a pop with none
	// pays one atomic load; moved wakes them by closing wake.
	waiting atomic.Int32
	mu      sync.Mutex
	wake    chan struct{}
}

// processingBuckets are for a pop that should take microseconds: a store write
// and one append per listener. A pop of a second means a listener's lock or an
// index function is slow.
var processingBuckets = []float64{0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.01, 0.1, 1}

func newProgress() progress { return progress{latency: metrics.NewHistogram(processingBuckets)} }

// moved notes the version a delta brings the store to. A watch event's object
// carries it; so does a Bookmark (a watch BOOKMARK, or the end of a list, queued
// by the FIFO after everything before it). An object of a list (Replaced) or a
// delete made up by a relist (Tombstone) is not: its version is older than the
// list's, which the Bookmark behind them brings.
func (p *progress) moved(d fifo.Delta[*apiclient.Object]) {
	rv := d.ResourceVersion
	switch {
	case d.Type == fifo.Bookmark:
	case d.Type == fifo.Replaced, d.Type == fifo.Sync, d.Tombstone != nil:
		return
	default:
		rv = d.Object.Metadata.ResourceVersion
	}
	if rv != "" {
		p.version.Store(&rv)
		if p.waiting.Load() > 0 {
			p.mu.Lock()
			if p.wake != nil {
				close(p.wake)
				p.wake = nil
			}
			p.mu.Unlock()
		}
	}
}

// WaitForStoreVersion blocks until the store stands at rv or past it
// (StoreResourceVersion), or ctx is done (false). "Past" is judged as etcd's
// resourceVersions allow, as integers; a version that is not one only
// matches itself. A sharded replica waits this way for the list of a range it
// takes over to be in the cache before it reconciles any of it.
func (inf *Informer) WaitForStoreVersion(ctx context.Context, rv string) bool {
	return inf.waitUntil(ctx, func() (bool, time.Time) { return reached(inf.StoreResourceVersion(), rv), time.Time{} })
}

// waitUntil blocks until cond reports true, or until ctx is done (false).
// cond is asked again each time the store's version moves, and at the time
// it names, if any (its answer may change with time as well as with the
// store).
func (inf *Informer) waitUntil(ctx context.Context, cond func() (bool, time.Time)) bool {
	p := &inf.progress
	p.waiting.Add(1)
	defer p.waiting.Add(-1)
	for {
		p.mu.Lock()
		ok, until := cond()
		if ok {
			p.mu.Unlock()
			return true
		}
		if p.wake == nil {
			p.wake = make(chan struct{})
		}
		wake := p.wake
		p.mu.Unlock()
		var due <-chan time.Time
		if !until.IsZero() {
			due = inf.clock.After(until.Sub(inf.clock.Now()))
		}
		select {
		case <-wake:
		case <-due:
		case <-ctx.Done():
			return false
		}
	}
}

// reached reports whether resourceVersion have is want or later.
func reached(have, want string) bool {
	if have == want {
		return true
	}
	h, err1 := strconv.ParseUint(have, 10, 64)
	w, err2 := strconv.ParseUint(want, 10, 64)
	return err1 == nil && err2 == nil && h > w
}

// StoreResourceVersion is the resourceVersion the cache stands at: every change
// the server made up to it has been applied to the store (and handed to the
// handlers' listeners), and nothing after it. "" until the first list is applied.
// It moves with every watch event, every bookmark, and every list once its last
// object is in; client-go calls it LastStoreSyncResourceVersion. With
// Options.DeltaFIFO, which keeps no order across keys, it moves with watch events
// only, as client-go's DeltaFIFO does.
//
// A controller that wrote an object and was given its new resourceVersion can
// wait for this to pass it before it trusts the cache to show its own write;
// resourceVersions are opaque, so compare them only as the API server's docs
// allow (equal or not), or as integers where you know your server (etcd's are).
func (inf *Informer) StoreResourceVersion() string {
	if v := inf.progress.version.Load(); v != nil {
		return *v
	}
	return ""
}

// ProcessingSeconds is how long each pop took to apply to the store and hand to
// the listeners, as a histogram (client-go's informer processing latency).
func (inf *Informer) ProcessingSeconds() metrics.HistogramSnapshot {
	return inf.progress.latency.Snapshot()
}

// since is the time from start to now, for the latency histogram.
func (inf *Informer) since(start time.Time) float64 { return inf.clock.Now().Sub(start).Seconds() }
