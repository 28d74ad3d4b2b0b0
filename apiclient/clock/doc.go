// Package clock is kubewire's floor: the few primitives of time every layer
// shares, one definition each, so that a rule kept here (a clock set back
// refills no tokens, a wait never exceeds its cap) is kept everywhere.
//
//   - Clock, the one time source, with Real (the wall clock) and Fake (the one
//     fake, stepped by hand: no test sleeps);
//   - Backoff, the one exponential series of waits (factor, jitter, cap, reset
//     after a quiet spell);
//   - Bucket, the one token bucket's arithmetic, which the client's request
//     limiter, the workqueue's overall limiter and the event recorder's
//     per-object limit wrap;
//   - Histogram, the one histogram core (counts by inclusive upper bound, a
//     count and a sum), under the workqueue's durations and every histogram of
//     controller/metrics;
//   - ObjectKey, the one namespace/name key, which store files objects under
//     and every other layer names them by. It is not about time: it is here
//     because this is the one package every layer may import.
//
// # Where this sits
//
//	apiclient ─▶ listwatch ─▶ fifo ─▶ store ─▶ queue ─▶ controller
//	(beneath them all: apiclient/clock)
//
// It imports only the standard library, so every package may import it: queue
// and store do, as their one import of the module (main_test.go's rule table
// says so).
//
// # Guarantees
//   - Real and Fake are safe for concurrent use; AfterFunc never calls f before
//     it has returned.
//   - A Fake's AfterFunc callbacks run inside Step, in the order they fall due,
//     each seeing Now at its due time.
//   - Backoff and Bucket are plain values; each call says what time it is, so
//     they hold no clock and need no lock of their own.
//
// # Compared with client-go
// k8s.io/utils/clock's Clock (with PassiveClock, and testing.FakeClock) offers
// channels only (After, NewTimer, Tick); its AfterFunc is a separate interface,
// WithDelayedExecution, which client-go's workqueue does not take (it takes
// WithTicker). This Clock has AfterFunc in it, so every user may rely on it;
// wait.Backoff and flowcontrol's token bucket (golang.org/x/time/rate) are the
// counterparts of Backoff and Bucket.
package clock
