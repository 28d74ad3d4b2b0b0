package clock

import (
	"math"
	"time"
)

// Bucket is the module's one token bucket: it holds up to burst tokens and gains
// one every interval (rate a second), and each taker spends one. It is only the
// arithmetic: every call says what time it is, so a Bucket holds no clock and no
// lock, and its users wrap it — the client's request limiter (apiclient, which
// waits for its token), the workqueue's overall limiter (queue.TokenBucket,
// which never reserves past a horizon) and the event recorder's per-object
// limit (controller/events, which drops what has no token).
//
// A clock set back refills nothing: time that runs backwards would otherwise
// take tokens away, or (the next time it moves forward) give them twice.
//
// The zero value is not usable; build one with NewBucket or NewBucketEvery.
// Not safe for concurrent use: the wrapper holds the lock.
type Bucket struct {
	every  float64   // nanoseconds per token
	burst  float64   // the most tokens it holds
	tokens float64   // may be negative: tokens already promised to waiters
	last   time.Time // when tokens was last brought up to date
}

// NewBucket returns a full bucket of burst tokens at now, refilling at rate
// tokens a second.
func NewBucket(rate float64, burst int, now time.Time) Bucket {
	return Bucket{every: float64(time.Second) / rate, burst: float64(burst), tokens: float64(burst), last: now}
}

// NewBucketEvery returns a full bucket of burst tokens at now, gaining one token
// every interval.
func NewBucketEvery(interval time.Duration, burst int, now time.Time) Bucket {
	return Bucket{every: float64(interval), burst: float64(burst), tokens: float64(burst), last: now}
}

// Reserve takes a token at now and returns how long until it is really there: 0
// when one was in the bucket, else the time until the debt and this token are
// repaid. When that is beyond horizon it takes nothing and returns horizon and
// false; a negative horizon means none (every reservation is taken). O(1).
func (b *Bucket) Reserve(now time.Time, horizon time.Duration) (time.Duration, bool) {
	b.refill(now)
	if b.tokens >= 1 {
		b.tokens--
		return 0, true
	}
	wait := (1 - b.tokens) * b.every
	if horizon >= 0 && wait > float64(horizon) {
		return horizon, false
	}
	b.tokens--
	if wait >= math.MaxInt64 {
		return math.MaxInt64, true
	}
	return time.Duration(wait), true
}

// Take spends a token at now if a whole one is there, and reports whether it
// did; it never goes into debt. O(1).
func (b *Bucket) Take(now time.Time) bool {
	_, ok := b.Reserve(now, 0)
	return ok
}

// Full reports whether the bucket would be full at now with nothing taken: a
// wrapper that keeps many buckets may forget such a one, since a new bucket
// starts full.
func (b *Bucket) Full(now time.Time) bool {
	return b.tokens+float64(now.Sub(b.last))/b.every >= b.burst
}

// refill brings tokens up to date at now; a clock set back refills nothing and
// leaves last where it was.
func (b *Bucket) refill(now time.Time) {
	if elapsed := now.Sub(b.last); elapsed > 0 {
		b.tokens = min(b.burst, b.tokens+float64(elapsed)/b.every)
		b.last = now
	}
}
