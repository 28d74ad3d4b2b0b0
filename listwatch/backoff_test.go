package listwatch

import (
	"testing"
	"time"
)

// Internal test: the backoff series is a pure function of the time and the random
// numbers, and easier to check here than through a whole reflector.
func TestBackoff_doubles_to_the_cap_with_jitter_and_resets_after_quiet(t *testing.T) {
	b := backoff{Backoff: Backoff{}.withDefaults()}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	half := func() float64 { return 0.5 }
	for _, tt := range []struct {
		at   time.Duration // since start
		want time.Duration
	}{
		{0, 1200 * time.Millisecond},                             // 0.8 s + half of it
		{time.Second, 2400 * time.Millisecond},                   // 1.6 s
		{2 * time.Second, 4800 * time.Millisecond},               // 3.2 s
		{3 * time.Second, 9600 * time.Millisecond},               // 6.4 s
		{4 * time.Second, 19200 * time.Millisecond},              // 12.8 s
		{5 * time.Second, 38400 * time.Millisecond},              // 25.6 s
		{6 * time.Second, 45 * time.Second},                      // capped at 30 s, then jitter
		{7 * time.Second, 45 * time.Second},                      // stays at the cap
		{7*time.Second + 2*time.Minute, 45 * time.Second},        // exactly two minutes: no reset yet
		{9*time.Second + 4*time.Minute, 1200 * time.Millisecond}, // more than two quiet minutes: reset
	} {
		if got := b.wait(start.Add(tt.at), half); got != tt.want {
			t.Fatalf("at +%s: wait %s, want %s", tt.at, got, tt.want)
		}
	}
}

func TestBackoff_jitter_stretches_by_up_to_the_whole_wait(t *testing.T) {
	for _, tt := range []struct {
		rand float64
		want time.Duration
	}{
		{0, 800 * time.Millisecond},
		{0.999, 1599200 * time.Microsecond},
	} {
		b := backoff{Backoff: Backoff{}.withDefaults()}
		if got := b.wait(time.Now(), func() float64 { return tt.rand }); got != tt.want {
			t.Fatalf("rand %v: wait %s, want %s", tt.rand, got, tt.want)
		}
	}
}
