package events

import (
	"context"
	"time"

	"github.com/kubewire/kubewire/apiclient/clock"
)

// seriesKey is what makes two events "the same event": client-go's isomorphic
// key, less the reporting controller and instance, which are one per Recorder.
type seriesKey struct {
	object                    string // regarding's uid, or kind/namespace/name without one
	eventType, reason, action string
	note                      string
}

// record is an Event this Recorder created, and how often it has been seen.
type record struct {
	name, namespace string
	count           int32
	first, last     time.Time
	dirty           bool // count moved since the last write
}

// record handles one event from the buffer, on Run's goroutine: dropped if its
// object is over the rate limit; counted in its series if the same event was
// seen within SeriesWindow (and written at once if that makes the series, count
// 2); else created.
func (r *Recorder) record(ctx context.Context, p pending) {
	obj := p.regarding.UID
	if obj == "" {
		obj = p.regarding.Kind + "/" + p.regarding.Namespace + "/" + p.regarding.Name
	}
	if !r.buckets.take(obj, p.at) {
		r.stats.limited.Add(1)
		return
	}
	key := seriesKey{obj, p.eventType, p.reason, p.action, p.note}
	if rec := r.series[key]; rec != nil && p.at.Sub(rec.last) <= r.opts.SeriesWindow {
		rec.count++
		rec.last = p.at
		rec.dirty = true
		r.stats.joined.Add(1)
		if rec.count == 2 { // the Event becomes a series now; later counts wait for a flush
			r.writeSeries(ctx, rec)
		}
		return
	}
	if rec := r.create(ctx, p); rec != nil && len(r.series) < maxSeries {
		r.series[key] = rec // past maxSeries it is written, just not followed as a series
	}
}

// maxSeries bounds the events remembered for series between flushes: memory
// stays bounded whatever a controller reports.
const maxSeries = 8192

// flush writes every series that grew since its last write, and forgets the
// series not seen within SeriesWindow of now (a zero now forgets none: Run is
// ending).
func (r *Recorder) flush(ctx context.Context, now time.Time) {
	for key, rec := range r.series {
		if rec.dirty {
			r.writeSeries(ctx, rec)
		}
		if !now.IsZero() && now.Sub(rec.last) > r.opts.SeriesWindow {
			delete(r.series, key)
		}
	}
}

// buckets is the per-object rate limit: a token bucket for each object (the
// module's one, clock.Bucket), burst tokens, one more every refill. At most
// maxObjects are tracked; past that the full ones (nothing lost: a new bucket
// starts full) are forgotten first, found by a sweep of the map, which happens
// at most once per maxObjects/4 new objects.
type buckets struct {
	burst  int
	refill time.Duration
	m      map[string]*clock.Bucket
}

const maxObjects = 4096

func newBuckets(burst int, refill time.Duration) *buckets {
	return &buckets{burst: burst, refill: refill, m: map[string]*clock.Bucket{}}
}

// take spends a token of obj's bucket at now, if it has one.
func (b *buckets) take(obj string, now time.Time) bool {
	bk := b.m[obj]
	if bk == nil {
		if len(b.m) >= maxObjects {
			b.forget(now)
		}
		nb := clock.NewBucketEvery(b.refill, b.burst, now)
		bk = &nb
		b.m[obj] = bk
	}
	return bk.Take(now)
}

// forget drops the buckets that would be full by now, and if that is not a
// quarter of them, a quarter anyway.
func (b *buckets) forget(now time.Time) {
	for obj, bk := range b.m {
		if bk.Full(now) {
			delete(b.m, obj)
		}
	}
	for obj := range b.m {
		if len(b.m) < maxObjects*3/4 {
			break
		}
		delete(b.m, obj)
	}
}
