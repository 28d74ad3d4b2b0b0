package clock

import (
	"math"
	"time"
)

// Backoff is the module's one series of waits: Initial, then each wait Factor
// times the last, never more than Max, each stretched by up to Jitter of itself
// (so that clients failing together do not retry together). Steps bounds how
// many tries a retry loop makes (apiclient.Retry); ResetAfter is how long a
// Series must go without a wait before it starts again from Initial.
//
// Zero fields mean: Factor below 1, waits stay flat (no growth); Max 0, no cap
// (but never past the longest time.Duration); Jitter 0, none; ResetAfter 0, a
// Series never resets by itself. A Backoff is a plain value; where the numbers
// sit is each user's choice (listwatch: client-go's reflector numbers; queue:
// 5 ms doubling to 1000 s; the staleness guard: 5 ms doubling to 1 s;
// apiclient.DefaultRetry: retry.DefaultRetry's).
type Backoff struct {
	Initial    time.Duration
	Factor     float64
	Max        time.Duration
	Jitter     float64
	Steps      int
	ResetAfter time.Duration
}

// Step returns the n-th wait of the series before jitter, n counted from 0:
// Initial·Factorⁿ, at most Max. It never overflows, however large n. O(log n)
// while the waits grow, O(1) once they stop.
func (b Backoff) Step(n int) time.Duration {
	d := b.Initial
	if b.Factor > 1 {
		for i := 0; i < n && d > 0 && (b.Max <= 0 || d < b.Max); i++ {
			next := float64(d) * b.Factor
			if next >= math.MaxInt64 {
				d = math.MaxInt64
				break
			}
			d = time.Duration(next)
		}
	}
	if b.Max > 0 && d > b.Max {
		d = b.Max
	}
	return d
}

// Wait returns the n-th wait with its jitter: Step(n) stretched as Jittered
// says, r being a random number in [0, 1).
func (b Backoff) Wait(n int, r float64) time.Duration { return Jittered(b.Step(n), b.Jitter, r) }

// Jittered returns d stretched by r·factor of itself, r in [0, 1): d to
// (1+factor)·d. It is the one jitter of the module (a Backoff's waits, leader
// election's retries).
func Jittered(d time.Duration, factor, r float64) time.Duration {
	if factor <= 0 || r <= 0 {
		return d
	}
	return d + time.Duration(r*factor*float64(d))
}

// Series is a Backoff in use: how many waits it has handed out since it last
// started, and when the last one was. The zero value (with the Backoff set)
// starts a series. Not safe for concurrent use: its one user owns it.
type Series struct {
	Backoff
	n    int       // waits handed out since the series started
	last time.Time // when the last wait was handed out
}

// Next returns the next wait before jitter, at now: Initial once the series is
// new, reset, or has been quiet for more than ResetAfter; then each Factor
// times the last, up to Max.
func (s *Series) Next(now time.Time) time.Duration {
	if s.last.IsZero() || s.ResetAfter > 0 && now.Sub(s.last) > s.ResetAfter {
		s.n = 0
	}
	s.last = now
	d := s.Step(s.n)
	if d < s.Max || s.Max <= 0 {
		s.n++ // past the cap the count stops: nothing changes and n cannot overflow
	}
	return d
}

// Reset starts the series again from Initial.
func (s *Series) Reset() { s.n, s.last = 0, time.Time{} }
