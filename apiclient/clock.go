package apiclient

import "github.com/kubewire/kubewire/apiclient/clock"

// Clock is the time source for the client's waits (rate limiting, Retry-After)
// and for the Reflector's backoff and timeouts, so tests can move time by hand
// instead of sleeping. It is the module's one Clock (package clock); clock.Fake
// is the fake.
type Clock = clock.Clock

// RealClock is the wall clock, clock.Real. Its zero value is ready to use.
type RealClock = clock.Real
