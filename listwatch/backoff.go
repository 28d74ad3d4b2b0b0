package listwatch

import "time"

// Backoff says how long a Reflector waits after a failure before trying again: Initial,
// then Factor times the last wait, never more than Max, each wait stretched by up to
// Jitter of itself (so that clients failing together do not retry together), and
// back to Initial once ResetAfter has passed since the last failure.
//
// The zero value means client-go's numbers (reflector.go's backoff manager): 0.8 s
// doubling to 30 s, jitter 1.0 (waits of 0.8–1.6 s at first, 30–60 s at most),
// reset after 2 minutes without a failure. A Backoff is a plain value.
type Backoff struct {
	Initial    time.Duration
	Max        time.Duration
	Factor     float64
	Jitter     float64
	ResetAfter time.Duration
}

func (b Backoff) withDefaults() Backoff {
	if b.Initial <= 0 {
		b.Initial = 800 * time.Millisecond
	}
	if b.Max <= 0 {
		b.Max = 30 * time.Second
	}
	if b.Factor < 1 {
		b.Factor = 2
	}
	if b.Jitter <= 0 {
		b.Jitter = 1
	}
	if b.ResetAfter <= 0 {
		b.ResetAfter = 2 * time.Minute
	}
	return b
}

// backoff is a Backoff in use: where the series stands. The zero value starts a
// series. Not safe for concurrent use; the Run goroutine owns it.
type backoff struct {
	Backoff
	next time.Duration // the next wait before jitter
	last time.Time     // when the last wait was handed out
}

// wait returns how long to wait after a failure at now; rand returns numbers in [0, 1).
func (b *backoff) wait(now time.Time, rand func() float64) time.Duration {
	if b.last.IsZero() || now.Sub(b.last) > b.ResetAfter {
		b.next = b.Initial
	}
	b.last = now
	d := b.next
	b.next = min(time.Duration(float64(b.next)*b.Factor), b.Max)
	return d + time.Duration(rand()*b.Jitter*float64(d))
}
