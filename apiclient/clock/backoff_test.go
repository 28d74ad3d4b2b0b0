package clock_test

import (
	"math"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient/clock"
)

const ms = time.Millisecond

func TestBackoff_Step_grows_by_Factor_up_to_Max(t *testing.T) {
	b := clock.Backoff{Initial: 5 * ms, Factor: 2, Max: time.Second}
	for n, want := range []time.Duration{5 * ms, 10 * ms, 20 * ms, 40 * ms, 80 * ms, 160 * ms, 320 * ms, 640 * ms, time.Second, time.Second} {
		if got := b.Step(n); got != want {
			t.Fatalf("Step(%d) = %v, want %v", n, got, want)
		}
	}
}

func TestBackoff_Step_never_overflows(t *testing.T) {
	for _, b := range []clock.Backoff{
		{Initial: time.Nanosecond, Factor: 2},
		{Initial: time.Nanosecond, Factor: 2, Max: math.MaxInt64},
		{Initial: time.Hour, Factor: 10, Max: 1000 * time.Hour},
	} {
		last := time.Duration(0)
		for n := range 200 {
			got := b.Step(n)
			if got < last {
				t.Fatalf("%+v: Step(%d) = %v, less than Step(%d) = %v: it overflowed", b, n, got, n-1, last)
			}
			last = got
		}
		if want := cmpOr(b.Max, math.MaxInt64); last != want {
			t.Fatalf("%+v: Step(199) = %v, want %v", b, last, want)
		}
	}
}

func cmpOr(d, or time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return or
}

func TestBackoff_a_Factor_below_1_keeps_the_waits_flat(t *testing.T) {
	for _, f := range []float64{0, 0.5, 1} {
		b := clock.Backoff{Initial: 10 * ms, Factor: f}
		if got, want := b.Step(7), 10*ms; got != want {
			t.Fatalf("Factor %v: Step(7) = %v, want %v", f, got, want)
		}
	}
}

func TestJittered_stretches_by_up_to_factor_of_itself(t *testing.T) {
	for _, tt := range []struct {
		factor, r float64
		want      time.Duration
	}{
		{1, 0, 800 * ms},
		{1, 0.5, 1200 * ms},
		{1, 0.999, 1599200 * time.Microsecond},
		{1.2, 0.5, 1280 * ms},
		{0, 0.5, 800 * ms},
	} {
		if got := clock.Jittered(800*ms, tt.factor, tt.r); got != tt.want {
			t.Fatalf("Jittered(800ms, %v, %v) = %v, want %v", tt.factor, tt.r, got, tt.want)
		}
	}
	if got, want := (clock.Backoff{Initial: 800 * ms, Factor: 2, Jitter: 1}).Wait(1, 0.5), 2400*ms; got != want {
		t.Fatalf("Wait(1, 0.5) = %v, want %v", got, want)
	}
}

func TestSeries_grows_stays_at_the_cap_and_starts_again_after_a_quiet_spell(t *testing.T) {
	s := clock.Series{Backoff: clock.Backoff{Initial: 800 * ms, Factor: 2, Max: 3 * time.Second, ResetAfter: time.Minute}}
	t0 := clock.NewFake().Now()
	at := t0
	for i, want := range []time.Duration{800 * ms, 1600 * ms, 3 * time.Second, 3 * time.Second} {
		if got := s.Next(at); got != want {
			t.Fatalf("wait %d: %v, want %v", i+1, got, want)
		}
		at = at.Add(time.Second)
	}
	at = at.Add(-time.Second) // the last wait's time
	if got, want := s.Next(at.Add(time.Minute)), 3*time.Second; got != want {
		t.Fatalf("exactly ResetAfter later: %v, want %v (no reset yet)", got, want)
	}
	if got, want := s.Next(at.Add(2*time.Minute+time.Nanosecond)), 800*ms; got != want {
		t.Fatalf("after a quiet spell: %v, want %v", got, want)
	}
	s.Next(at.Add(3 * time.Minute))
	s.Reset()
	if got, want := s.Next(at.Add(3*time.Minute)), 800*ms; got != want {
		t.Fatalf("after Reset: %v, want %v", got, want)
	}
}
