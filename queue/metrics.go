package queue

import (
	"time"

	"github.com/kubewire/kubewire/apiclient/clock"
)

// Metrics is a snapshot of what a queue has done, as plain values: read the fields,
// log them, or register the queue's Metrics method with controller/metrics.Workqueue,
// which serves them on /metrics. The names follow client-go's workqueue metrics (in
// parentheses) so that existing dashboards read them.
//
// The zero value is the snapshot of a queue that has done nothing. A Metrics is a
// value: copy it freely.
type Metrics struct {
	// Depth is how many keys wait to be processed: queued ones, plus those being
	// processed that were added again (workqueue_depth).
	Depth int
	// Adds counts the Adds that were not absorbed by a key already waiting
	// (workqueue_adds_total).
	Adds uint64
	// Retries counts AddAfter and AddRateLimited calls (workqueue_retries_total).
	Retries uint64
	// Delayed is how many keys AddAfter holds until they are due (no client-go metric).
	Delayed int
	// Processing is how many keys are handed out and not yet Done.
	Processing int

	// QueueTime is how long keys waited between Add and Get
	// (workqueue_queue_duration_seconds).
	QueueTime Histogram
	// WorkTime is how long keys were processed, Get to Done
	// (workqueue_work_duration_seconds).
	WorkTime Histogram

	// UnfinishedWork is the sum over keys being processed of how long each has been;
	// it grows steadily if a worker is stuck (workqueue_unfinished_work_seconds).
	UnfinishedWork time.Duration
	// LongestRunning is how long the oldest key being processed has been
	// (workqueue_longest_running_processor_seconds).
	LongestRunning time.Duration
}

// Histogram counts durations into buckets whose upper bounds go from 10 ns to 10 s by
// factors of ten, as client-go's do.
//
// The zero value is an empty histogram. A Histogram is a value: copy it freely.
type Histogram struct {
	// Buckets[i].Count is how many durations were at most Buckets[i].Le: cumulative,
	// as Prometheus wants it. Durations above the last bound are only in Count.
	Buckets [len(bounds)]Bucket
	Count   uint64        // how many durations in all
	Sum     time.Duration // their total
}

// Bucket is one cumulative bucket of a Histogram. A value, like Histogram.
type Bucket struct {
	Le    time.Duration // upper bound, inclusive
	Count uint64
}

// bounds are the histogram buckets' upper bounds.
var bounds = [...]time.Duration{
	10 * time.Nanosecond, 100 * time.Nanosecond,
	time.Microsecond, 10 * time.Microsecond, 100 * time.Microsecond,
	time.Millisecond, 10 * time.Millisecond, 100 * time.Millisecond,
	time.Second, 10 * time.Second,
}

// Metrics returns a snapshot of the queue's metrics. It costs O(keys queued or
// processing), for the two values that depend on how long each key has been
// processing: call it per scrape, not per key. With Config.NoTiming the four
// durations are zero.
func (q *Queue[K]) Metrics() Metrics {
	q.mu.Lock()
	defer q.mu.Unlock()
	m := Metrics{
		Depth:      q.stats.dirty,
		Adds:       q.stats.adds,
		Retries:    q.stats.retries,
		Delayed:    q.delayed.len(),
		Processing: q.processing,
		QueueTime:  q.stats.queueTime.snapshot(),
		WorkTime:   q.stats.workTime.snapshot(),
	}
	if q.noTiming {
		return m
	}
	now := q.now()
	for _, e := range q.keys {
		if !e.processing {
			continue
		}
		age := now - e.startedAt
		m.UnfinishedWork += age
		m.LongestRunning = max(m.LongestRunning, age)
	}
	return m
}

// stats is what the queue counts as it goes. Not safe for concurrent use: the queue's
// mutex guards it.
type stats struct {
	adds, retries       uint64
	dirty               int // keys with state.dirty set
	queueTime, workTime histogram
}

// histogram is the recording side of Histogram: the module's one histogram core,
// clock.Histogram, counting nanoseconds, made on first use. The zero value is
// empty; not safe for concurrent use (the queue's mutex guards it, and the
// making).
type histogram struct{ core *clock.Histogram }

// nanos are bounds in nanoseconds, as the core counts them.
var nanos = func() []float64 {
	out := make([]float64, len(bounds))
	for i, b := range bounds {
		out[i] = float64(b)
	}
	return out
}()

// observe records one duration. O(log len(bounds)); it runs under the queue's lock
// twice per key, so it does not allocate (but once).
func (h *histogram) observe(d time.Duration) {
	if h.core == nil {
		h.core = clock.NewHistogram(nanos)
	}
	h.core.Observe(float64(d))
}

// snapshot returns h as a Histogram, with cumulative bucket counts.
func (h *histogram) snapshot() Histogram {
	var out Histogram
	for i, le := range bounds {
		out.Buckets[i] = Bucket{Le: le}
	}
	if h.core == nil {
		return out
	}
	i := 0
	count, sum := h.core.Read(func(_ float64, n uint64) { out.Buckets[i].Count = n; i++ })
	out.Count, out.Sum = count, time.Duration(sum)
	return out
}
