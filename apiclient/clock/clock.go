package clock

import "time"

// Clock is where every part of kubewire gets its time: the client's rate limit
// and Retry-After waits, a Reflector's backoff and timeouts, the workqueue's
// delays and metrics, a Manager's resyncs, leases and recorders. Tests pass a
// Fake and step it by hand, so no test sleeps; Real is the wall clock.
//
// It offers both shapes of a wait. After is a channel, for code that selects on
// it beside a context. AfterFunc is a callback, for code that must not need a
// goroutine to read a channel: a Fake runs due callbacks inside Step, so when
// Step returns a delayed key is already in its queue and the test is
// deterministic without waiting (client-go's clock.WithTicker offers only
// channels).
//
// An implementation must be safe for concurrent use, and AfterFunc must never
// call f before it has returned (the queue arms timers while holding its lock).
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// Since returns the time elapsed since t. The queue calls it up to three
	// times per key, so it is in the interface: time.Since reads only the
	// monotonic clock, half the cost of time.Now, which reads the wall clock too.
	Since(t time.Time) time.Duration
	// After is time.After: a channel that receives once d has passed.
	After(d time.Duration) <-chan time.Time
	// AfterFunc calls f once, d from now, on a goroutine of the clock's choosing.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a pending AfterFunc call; *time.Timer is one. Stop prevents the call
// if it has not started and reports whether it did so; Reset makes the call
// happen d from now, whether or not it already happened. Implementations must be
// safe for concurrent use.
type Timer interface {
	Stop() bool
	Reset(d time.Duration) bool
}

// Real is the wall clock: time.Now, time.Since, time.After and time.AfterFunc.
//
// The zero value is ready to use and safe for concurrent use.
type Real struct{}

// Now returns time.Now().
func (Real) Now() time.Time { return time.Now() }

// Since returns time.Since(t).
func (Real) Since(t time.Time) time.Duration { return time.Since(t) }

// After returns time.After(d). Since Go 1.23 an unreferenced timer is collected
// even before it fires, so a select that abandons the channel leaks nothing.
func (Real) After(d time.Duration) <-chan time.Time { return time.After(d) }

// AfterFunc returns time.AfterFunc(d, f): f runs in a goroutine of its own that
// the runtime starts when the timer fires and that ends when f returns.
func (Real) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

// Or returns c, or Real when c is nil: what a constructor whose options leave
// the clock unset uses.
func Or(c Clock) Clock {
	if c == nil {
		return Real{}
	}
	return c
}
