package clock_test

import (
	"math"
	"slices"
	"testing"

	"github.com/kubewire/kubewire/apiclient/clock"
)

func TestHistogram_counts_by_inclusive_upper_bound_cumulatively(t *testing.T) {
	h := clock.NewHistogram([]float64{1, 10})
	for _, v := range []float64{0.5, 1, 2, 10, 11, math.NaN()} {
		h.Observe(v)
	}
	var les []float64
	var counts []uint64
	count, sum := h.Read(func(le float64, n uint64) { les, counts = append(les, le), append(counts, n) })
	if !slices.Equal(les, []float64{1, 10}) || !slices.Equal(counts, []uint64{2, 4}) {
		t.Fatalf("buckets %v %v, want [1 10] [2 4]", les, counts)
	}
	if count != 6 || !math.IsNaN(sum) {
		t.Fatalf("count %d sum %v, want 6 NaN (a NaN lands above every bound, and in the sum)", count, sum)
	}
}

func TestHistogram_zero_value_counts_and_sums(t *testing.T) {
	var h clock.Histogram
	h.Observe(2)
	h.Observe(3)
	count, sum := h.Read(func(float64, uint64) { t.Fatal("a zero Histogram has no bounds") })
	if count != 2 || sum != 5 {
		t.Fatalf("count %d sum %v, want 2 5", count, sum)
	}
}
