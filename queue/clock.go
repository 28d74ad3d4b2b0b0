package queue

import "time"

// Clock is where the queue gets its time: the metrics read Since, and AddAfter arms
// one timer with AfterFunc. Tests pass the fake in package queuetest and step it by hand,
// so no test ever sleeps.
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

// Timer is a pending AfterFunc call; *time.Timer is one. Implementations must be
// safe for concurrent use.
type Timer interface {
	// Stop prevents the call if it has not started; it reports whether it did so.
	Stop() bool
	// Reset makes the call happen d from now, whether or not it already happened.
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
