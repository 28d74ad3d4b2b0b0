package apiclient

import (
	"context"
	"math/rand/v2"
	"time"
)

// Backoff describes a series of waits: Duration, then each wait Factor times the
// last, each stretched by up to Jitter of itself, for at most Steps tries.
type Backoff struct {
	Steps    int
	Duration time.Duration
	Factor   float64
	Jitter   float64
}

// DefaultRetry is client-go's retry.DefaultRetry: five tries, 10 ms apart, with 10%
// jitter. Conflicts come from another writer that was a moment faster; a short,
// flat wait is enough for a fresh read to see its write.
var DefaultRetry = Backoff{Steps: 5, Duration: 10 * time.Millisecond, Factor: 1.0, Jitter: 0.1}

// RetryOnConflict runs fn until it returns an error that is not a Conflict (nil
// included), at most DefaultRetry.Steps times. fn must read the object afresh each
// time — retrying a write of the same stale object can never succeed:
//
//	err := apiclient.RetryOnConflict(ctx, func() error {
//		d, err := deployments.Get(ctx, "web")
//		if err != nil {
//			return err
//		}
//		// change d …
//		_, err = deployments.Update(ctx, d, apiclient.WriteOptions{})
//		return err
//	})
func RetryOnConflict(ctx context.Context, fn func() error) error {
	return Retry(ctx, DefaultRetry, RealClock{}, IsConflict, fn)
}

// Retry runs fn while retriable(err) holds, waiting as b says between tries, at most
// b.Steps times in all; it returns fn's last error (or ctx's, if ctx ends first).
func Retry(ctx context.Context, b Backoff, clock Clock, retriable func(error) bool, fn func() error) error {
	wait := b.Duration
	for step := 1; ; step++ {
		err := fn()
		if err == nil || !retriable(err) || step >= b.Steps {
			return err
		}
		d := wait
		if b.Jitter > 0 {
			d += time.Duration(rand.Float64() * b.Jitter * float64(wait))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-clock.After(d):
		}
		if b.Factor > 0 {
			wait = time.Duration(float64(wait) * b.Factor)
		}
	}
}
