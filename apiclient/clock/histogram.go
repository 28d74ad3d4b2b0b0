package clock

import (
	"math"
	"sort"
	"sync/atomic"
)

// Histogram is the module's one histogram core: it counts observations into
// buckets by inclusive upper bound and keeps their count and sum. Its users give
// the numbers their unit: the workqueue's durations in nanoseconds
// (queue.Metrics), every *_seconds series in seconds (controller/metrics).
//
// The zero value has no bucket but the one above every bound (a count and a sum,
// nothing more); NewHistogram gives it bounds. A Histogram is safe for concurrent
// use and takes no lock: Observe is two atomic additions and a compare-and-swap.
// A reader that runs during an Observe may see the observation counted and the
// sum not yet increased; the count is the sum of the buckets, so those two always
// agree. Do not copy a Histogram once used.
type Histogram struct {
	upper  []float64       // ascending upper bounds, +Inf left out
	counts []atomic.Uint64 // counts[i]: observations in (upper[i-1], upper[i]], not cumulative
	inf    atomic.Uint64   // observations above every bound
	sum    atomic.Uint64   // math.Float64bits of the sum
}

// NewHistogram returns a histogram with these upper bounds (SetBounds).
func NewHistogram(upper []float64) *Histogram {
	h := new(Histogram)
	h.SetBounds(upper)
	return h
}

// SetBounds gives a Histogram that has not been used its upper bounds, which
// must ascend strictly and leave +Inf out (the caller checks: its panic names
// its package); it keeps upper, so do not modify it afterwards. For a Histogram
// held by value in a type whose zero value must work; not safe for concurrent
// use with anything.
func (h *Histogram) SetBounds(upper []float64) {
	h.upper, h.counts = upper, make([]atomic.Uint64, len(upper))
}

// Observe records v. It costs a binary search over the bounds and three atomic
// operations, and allocates nothing.
func (h *Histogram) Observe(v float64) {
	// The first bound >= v: buckets are inclusive of their upper bound. NaN sorts
	// nowhere and lands above every bound, as it does in Prometheus's own client.
	if i := sort.SearchFloat64s(h.upper, v); i < len(h.counts) {
		h.counts[i].Add(1)
	} else {
		h.inf.Add(1)
	}
	for {
		old := h.sum.Load()
		if h.sum.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+v)) {
			return
		}
	}
}

// Read calls bucket once per bound, in ascending order, with the bound and how
// many observations were at most it (cumulative, so counts never decrease), and
// returns the count of every observation and their sum. O(bounds).
func (h *Histogram) Read(bucket func(le float64, cumulative uint64)) (count uint64, sum float64) {
	for i, le := range h.upper {
		count += h.counts[i].Load()
		bucket(le, count)
	}
	return count + h.inf.Load(), math.Float64frombits(h.sum.Load())
}
