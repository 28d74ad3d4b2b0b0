package queue

import "github.com/kubewire/kubewire/apiclient/clock"

// Clock is where the queue gets its time: the metrics read Since, and AddAfter
// arms one timer with AfterFunc. It is the module's one Clock, from
// apiclient/clock, the standard-library-only floor that is queue's one import of
// the module; tests pass its Fake and step it by hand, so no test ever sleeps,
// and a controller test sets one clock for the client, the Reflector and the
// queue.
//
// Why AfterFunc rather than a channel: a channel needs a goroutine to read it, and
// a test then has to wait until that goroutine has noticed the tick before it can
// look at the queue. With a callback, the fake clock runs due callbacks inside
// Step, so when Step returns the delayed keys are already in the queue: the test
// is deterministic without waiting.
type Clock = clock.Clock

// Timer is a pending AfterFunc call (clock.Timer); *time.Timer is one.
type Timer = clock.Timer

// RealClock is the wall clock (clock.Real): time.Now and time.AfterFunc. The
// zero value is ready to use and safe for concurrent use.
type RealClock = clock.Real
