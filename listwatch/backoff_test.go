package listwatch

import (
	"testing"
	"time"
)

// Internal test: the backoff series is a pure function of the time and the random
// numbers, and easier to check here than through a whole reflector.
func TestBackoff_doubles_to_the_cap_with_jitter_and_resets_after_quiet(t *testing.T) {
	b := newBackoff(Options{}.withDefaults())
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
		if got := b.wait(start.Add(tt.at), half, false); got != tt.want {
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
		b := newBackoff(Options{}.withDefaults())
		if got := b.wait(time.Now(), func() float64 { return tt.rand }, false); got != tt.want {
			t.Fatalf("rand %v: wait %s, want %s", tt.rand, got, tt.want)
		}
	}
}

// While the server does not answer, the waits stop growing at MaxUnreachable (1 s,
// 1–2 s with jitter); the first answer after that starts the series again, so a
// Reflector is back within two seconds of the server, and a server that answers
// with failures gets the whole series (issue 31: 45 s after a 20 s outage).
func TestBackoff_an_unreachable_server_is_asked_every_second_or_two_and_its_answer_resets(t *testing.T) {
	b := newBackoff(Options{}.withDefaults())
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	half := func() float64 { return 0.5 }
	at := start
	for i, want := range []time.Duration{
		1200 * time.Millisecond, // 0.8 s + half
		1500 * time.Millisecond, // 1.6 s, capped at 1 s, + half
		1500 * time.Millisecond, // and so on, for as long as it takes
		1500 * time.Millisecond,
		1500 * time.Millisecond,
		1500 * time.Millisecond,
		1500 * time.Millisecond,
	} {
		if got := b.wait(at, half, true); got != want {
			t.Fatalf("unreachable, try %d: wait %s, want %s", i+1, got, want)
		}
		at = at.Add(time.Second)
	}
	// The server answers with a failure (a 410, a 503): the series starts again,
	// and grows as failures go on.
	for i, want := range []time.Duration{1200 * time.Millisecond, 2400 * time.Millisecond, 4800 * time.Millisecond} {
		if got := b.wait(at, half, false); got != want {
			t.Fatalf("answered, failure %d: wait %s, want %s", i+1, got, want)
		}
		at = at.Add(time.Second)
	}
	// Unreachable again, then an answer that is a success (answered): the next
	// failure starts from the beginning.
	if got := b.wait(at, half, true); got != 1500*time.Millisecond {
		t.Fatalf("unreachable after answered failures: wait %s, want 1.5s", got)
	}
	b.answered()
	if got := b.wait(at.Add(time.Second), half, false); got != 1200*time.Millisecond {
		t.Fatalf("the first failure after the server answered: wait %s, want 1.2s", got)
	}
}
