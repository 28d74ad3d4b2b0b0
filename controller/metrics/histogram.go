package metrics

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/kubewire/kubewire/apiclient/clock"
)

// DefaultBuckets are Prometheus's usual bucket bounds, in seconds: 5 ms to 10 s,
// for durations of requests and reconciles.
var DefaultBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// ReconcileBuckets are controller-runtime's bounds for
// controller_runtime_reconcile_time_seconds (since v0.15), in seconds: finer than
// DefaultBuckets between 100 ms and 1 s, where most reconciles that call the API
// server land, and up to a minute, so that dashboards built for
// controller-runtime read kubewire's kubewire_reconcile_time_seconds alike.
var ReconcileBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7,
	0.8, 0.9, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60}

// Histogram counts observations into buckets by upper bound, and keeps their count
// and sum: durations of requests, of reconciles.
//
// The zero value has no bucket but +Inf (a count and a sum, nothing more); get one
// with bounds from Registry.Histogram or NewHistogram. A Histogram is safe for
// concurrent use and takes no lock: Observe is two atomic operations and a
// compare-and-swap. A scrape that runs during an Observe may see the observation
// counted and the sum not yet increased; the count is the sum of the buckets, so
// those two always agree.
//
// The counting is the module's one histogram core, clock.Histogram; this adds
// the registry, the seconds and the snapshot the page writes.
type Histogram struct{ core clock.Histogram }

// NewHistogram returns an unregistered histogram with these upper bounds, which must
// be ascending; a last +Inf is implied and may be left out.
func NewHistogram(buckets []float64) *Histogram {
	h := new(Histogram)
	h.core.SetBounds(slices.Clone(checkBuckets(buckets)))
	return h
}

// Histogram registers a histogram without labels and returns it. buckets nil means
// DefaultBuckets. Registering the same name again returns the same Histogram.
func (r *Registry) Histogram(name, help string, buckets []float64) *Histogram {
	buckets = checkBuckets(orDefault(buckets))
	f := r.register(name, help, histogramKind, nil, buckets)
	return mustHistogram(f, f.get(nil, func(s *series) { s.histogram = NewHistogram(buckets) }))
}

// Observe records v. It costs a binary search over the bounds and three atomic
// operations, and allocates nothing.
func (h *Histogram) Observe(v float64) { h.core.Observe(v) }

// ObserveDuration records d in seconds, the unit of every *_seconds metric.
func (h *Histogram) ObserveDuration(d time.Duration) { h.Observe(d.Seconds()) }

// Snapshot returns the histogram's buckets, count and sum as plain values.
// O(buckets).
func (h *Histogram) Snapshot() HistogramSnapshot {
	var s HistogramSnapshot
	s.Count, s.Sum = h.core.Read(func(le float64, n uint64) {
		s.Buckets = append(s.Buckets, Bucket{UpperBound: le, Count: n})
	})
	return s
}

// HistogramSnapshot is what a histogram holds at one moment, as the text format
// writes it: cumulative buckets, then the count and sum of every observation.
//
// The zero value is an empty histogram with no bucket but +Inf. A value: copy it
// freely (Buckets is shared by copies; do not modify it).
type HistogramSnapshot struct {
	// Buckets[i].Count is how many observations were at most Buckets[i].UpperBound,
	// so counts never decrease along the slice. +Inf is left out: its count is Count.
	Buckets []Bucket
	Count   uint64
	Sum     float64
}

// Bucket is one cumulative histogram bucket.
type Bucket struct {
	UpperBound float64
	Count      uint64
}

// HistogramVec is a family of histograms told apart by label values, all with the
// same buckets.
//
// The zero value is not usable; get one from Registry.HistogramVec. A HistogramVec is
// safe for concurrent use.
type HistogramVec struct{ f *family }

// HistogramVec registers a histogram family with these buckets (nil: DefaultBuckets)
// and label names, and returns it. Registering the same name again with the same
// buckets and labels returns the same family.
func (r *Registry) HistogramVec(name, help string, buckets []float64, labels ...string) *HistogramVec {
	return &HistogramVec{r.register(name, help, histogramKind, labels, checkBuckets(orDefault(buckets)))}
}

// With returns the histogram for these label values, creating it empty on first use.
// One map lookup; it allocates only the first time.
func (v *HistogramVec) With(values ...string) *Histogram {
	return mustHistogram(v.f, v.f.get(values, func(s *series) { s.histogram = NewHistogram(v.f.buckets) }))
}

// HistogramFunc registers a histogram read by calling fn at scrape time, for
// histograms something else keeps (a workqueue's durations). Every snapshot fn
// returns for one family should have the same bucket bounds; the page shows what fn
// returns. fn must be safe to call from any goroutine.
func (r *Registry) HistogramFunc(name, help string, labels Labels, fn func() HistogramSnapshot) {
	r.register(name, help, histogramKind, labels.sortedNames(), nil).add(labels, func(s *series) { s.histFn = fn })
}

func mustHistogram(f *family, s *series) *Histogram {
	if s.histogram == nil {
		panic(fmt.Sprintf("metrics: %s{%s} is registered as a func, not a Histogram", f.name, s.pairs))
	}
	return s.histogram
}

func orDefault(buckets []float64) []float64 {
	if buckets == nil {
		return DefaultBuckets
	}
	return buckets
}

// checkBuckets returns buckets without a last +Inf, and panics unless the bounds are
// strictly ascending numbers: a histogram with bounds out of order would put
// observations in the wrong bucket without anyone noticing.
func checkBuckets(buckets []float64) []float64 {
	if n := len(buckets); n > 0 && math.IsInf(buckets[n-1], +1) {
		buckets = buckets[:n-1]
	}
	for i, b := range buckets {
		if math.IsNaN(b) || math.IsInf(b, 0) || (i > 0 && b <= buckets[i-1]) {
			panic(fmt.Sprintf("metrics: histogram buckets must ascend strictly, got %v", buckets))
		}
	}
	return buckets
}
