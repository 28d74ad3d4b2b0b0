package queue

import "time"

// Clock is where the queue gets its time: the metrics read Since, and AddAfter arms
// one timer with AfterFunc. Tests pass a fake and step it by hand, so no test ever
// sleeps: apiclient/apitest's Clock is one, the same fake that times the client's
// and the Reflector's waits, so a controller test sets one clock for everything.
//
// Every type in these signatures is the standard library's (Timer is an alias of an
// interface literal, not a type of this package), so a fake in another package
// satisfies Clock without importing queue, and queue imports nothing of the module.
//
// Why AfterFunc rather than a channel (After(d) <-chan time.Time, as client-go's
// clock.WithTicker offers): a channel needs a goroutine to read it, and a test then has
// to wait until that goroutine has noticed the tick before it can look at the queue.
// With a callback, the fake clock runs due callbacks inside Step, so when Step returns
// the delayed keys are already in the queue: the test is deterministic without waiting.
//
// An implementation must be safe for concurrent use, and AfterFunc must never call f
// before it has returned (the queue arms timers while holding its lock).
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// Since returns the time elapsed since t. The queue calls it up to three times per
	// key, so it is in the interface: time.Since reads only the monotonic clock, half
	// the cost of time.Now, which reads the wall clock too.
	Since(t time.Time) time.Duration
	// AfterFunc calls f once, d from now, on a goroutine of the clock's choosing.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a pending AfterFunc call; *time.Timer is one. Stop prevents the call if
// it has not started and reports whether it did so; Reset makes the call happen d
// from now, whether or not it already happened. Implementations must be safe for
// concurrent use.
//
// It is an alias, so that AfterFunc's result type is the interface literal itself:
// a Clock in another package returns the same literal and matches Clock exactly.
type Timer = interface {
	Stop() bool
	Reset(d time.Duration) bool
}

// RealClock is the wall clock: time.Now and time.AfterFunc.
//
// The zero value is ready to use and safe for concurrent use.
type RealClock struct{}

// Now returns time.Now().
func (RealClock) Now() time.Time { return time.Now() }

// Since returns time.Since(t).
func (RealClock) Since(t time.Time) time.Duration { return time.Since(t) }

// AfterFunc returns time.AfterFunc(d, f): f runs in a goroutine of its own that the
// runtime starts when the timer fires and that ends when f returns.
func (RealClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }
