package apiclient

import "time"

// Clock is the time source for the client's waits (rate limiting, Retry-After) and
// for the Reflector's backoff and timeouts, so tests can move time by hand instead
// of sleeping; apitest.Clock is the fake.
type Clock interface {
	Now() time.Time
	// After is time.After: a channel that receives once d has passed.
	After(d time.Duration) <-chan time.Time
}

// RealClock is the wall clock. Its zero value is ready to use.
type RealClock struct{}

// Now is time.Now.
func (RealClock) Now() time.Time { return time.Now() }

// After is time.After. Since Go 1.23 an unreferenced timer is collected even before
// it fires, so a select that abandons the channel leaks nothing.
func (RealClock) After(d time.Duration) <-chan time.Time { return time.After(d) }
