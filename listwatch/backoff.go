package listwatch

import (
	"time"

	"github.com/kubewire/kubewire/apiclient/clock"
)

// Backoff says how long a Reflector waits after a failure before trying again:
// Initial, then Factor times the last wait, never more than Max, each wait
// stretched by up to Jitter of itself (so that clients failing together do not
// retry together), and back to Initial once ResetAfter has passed since the last
// failure. It is the module's one Backoff, clock.Backoff (Steps is not used: a
// Reflector never gives up).
//
// While the server does not answer at all (apiclient.IsUnreachable: the
// connection refused, reset or timed out), the wait before jitter is at most
// Options.MaxUnreachable, and the first answer after that — any answer: a watch
// opened, a list read, a Status — starts the series again from Initial. A server
// that is down costs nothing to ask, and asking often is how a Reflector learns
// first that it is back: its own next try is the signal, whether or not its
// resource changes. A server that answers with failures (a 5xx, a 410, a watch
// that ends at once) gets the full series, up to Max.
//
// The zero value means client-go's numbers (reflector.go's backoff manager): 0.8 s
// doubling to 30 s, jitter 1.0 (waits of 0.8–1.6 s at first, 30–60 s at most),
// reset after 2 minutes without a failure; and MaxUnreachable 1 s (waits of 1–2
// s), which client-go does not have: after an outage its quiet informers wait out
// waits of up to a minute (issue 31: 45 s, the controller 58 s after the server
// was back). A Backoff is a plain value.
type Backoff = clock.Backoff

// backoffDefaults fills b's zero fields with client-go's numbers (Backoff).
func backoffDefaults(b Backoff) Backoff {
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

// backoff is a Backoff in use: where the series stands, and whether the server
// answered the last failure. Not safe for concurrent use; the Run goroutine owns
// it.
type backoff struct {
	series         clock.Series
	maxUnreachable time.Duration
	unreachable    bool // the last failure had no answer from the server
}

// newBackoff returns the series o (with its defaults) asks for.
func newBackoff(o Options) backoff {
	return backoff{series: clock.Series{Backoff: o.Backoff}, maxUnreachable: o.MaxUnreachable}
}

// wait returns how long to wait after a failure at now; rand returns numbers in
// [0, 1). unreachable says the server did not answer at all.
func (b *backoff) wait(now time.Time, rand func() float64, unreachable bool) time.Duration {
	if !unreachable {
		b.answered()
	}
	d := b.series.Next(now)
	if unreachable {
		d = min(d, b.maxUnreachable)
		b.unreachable = true
	}
	return clock.Jittered(d, b.series.Jitter, rand())
}

// answered is told that the server answered: the first answer after failures
// that had none starts the series again, and answered reports it.
func (b *backoff) answered() bool {
	if !b.unreachable {
		return false
	}
	b.unreachable = false
	b.series.Reset()
	return true
}
