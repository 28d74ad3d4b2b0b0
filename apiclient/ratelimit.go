package apiclient

import (
	"context"
	"sync"
	"time"
)

// tokenBucket is client-side rate limiting: a bucket holds up to burst tokens and
// refills at qps tokens a second; each request takes one, waiting for it if the
// bucket is empty. It protects the API server from a controller in a hot loop.
// client-go uses the same shape (flowcontrol.NewTokenBucketRateLimiter, QPS 5,
// burst 10 by default).
//
// Safe for concurrent use. Waiters are served in the order they reserve, because
// each reserves its token (possibly going into debt) before waiting.
type tokenBucket struct {
	mu     sync.Mutex
	qps    float64
	burst  float64
	tokens float64   // may go negative: tokens reserved by waiters
	last   time.Time // when tokens was last brought up to date
	clock  Clock
}

func newTokenBucket(qps float64, burst int, clock Clock) *tokenBucket {
	return &tokenBucket{qps: qps, burst: float64(burst), tokens: float64(burst), last: clock.Now(), clock: clock}
}

// Wait takes one token, blocking until it is available or ctx is done. A wait that
// is cancelled still consumes its reservation; that only makes the next caller
// slightly more patient, never the server busier.
func (b *tokenBucket) Wait(ctx context.Context) error {
	d := b.reserve()
	if d <= 0 {
		return ctx.Err()
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-b.clock.After(d):
		return nil
	}
}

// reserve takes a token now and says how long until it is really there.
func (b *tokenBucket) reserve() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.clock.Now()
	b.tokens += now.Sub(b.last).Seconds() * b.qps
	if b.tokens > b.burst {
		b.tokens = b.burst
	}
	b.last = now
	b.tokens--
	if b.tokens >= 0 {
		return 0
	}
	return time.Duration(-b.tokens / b.qps * float64(time.Second))
}
