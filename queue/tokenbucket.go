package queue

import (
	"fmt"
	"sync"
	"time"
)

// TokenBucket is the overall limiter: a token bucket that refills at qps tokens a second
// up to burst, shared by all keys. Each When takes a token; if none is left it
// reserves the next one to arrive and returns how long until then, so retries leave
// the queue at qps a second however many keys fail at once.
//
// Unlike client-go's BucketRateLimiter it never schedules a retry further out than
// maxDelay. client-go reserves a token on every call, so when keys fail faster than
// qps the reservations run ever further ahead and the delay grows without bound:
// hours, under a mass failure (kubernetes/kubernetes#104554). Here, when the next free
// token is further away than maxDelay, the key is scheduled at maxDelay and takes no
// token, so the bucket's debt never exceeds maxDelay·qps tokens. What that gives up:
// beyond the horizon the rate is not kept (every key over it waits exactly
// maxDelay, so they come back together), which is why client-go's maintainers would
// not make it the default there; kubewire prefers a bounded wait, and the per-key
// Exponential limiter still spreads keys that keep failing.
//
// The zero value is not usable; build one with NewTokenBucket. A TokenBucket is safe for
// concurrent use.
type TokenBucket[K comparable] struct {
	clock    Clock
	qps      float64
	burst    float64
	maxDelay time.Duration

	mu     sync.Mutex
	tokens float64   // may be negative: tokens already promised to waiting keys
	last   time.Time // when tokens was last brought up to date
}

// NewTokenBucket returns a full bucket of burst tokens refilling at qps a second, which
// never delays a key more than maxDelay. clock nil means RealClock. It panics if qps
// is not positive or burst is negative: those are programming errors.
func NewTokenBucket[K comparable](clock Clock, qps float64, burst int, maxDelay time.Duration) *TokenBucket[K] {
	if qps <= 0 || burst < 0 {
		panic(fmt.Sprintf("queue.NewTokenBucket: qps %v must be > 0 and burst %d >= 0", qps, burst))
	}
	if clock == nil {
		clock = RealClock{}
	}
	return &TokenBucket[K]{
		clock: clock, qps: qps, burst: float64(burst), maxDelay: maxDelay,
		tokens: float64(burst), last: clock.Now(),
	}
}

// When takes a token and returns 0, or reserves the next one and returns how long
// until it arrives, or, if that is beyond maxDelay, returns maxDelay and takes
// nothing. The key is ignored: the bucket is shared. O(1).
func (b *TokenBucket[K]) When(K) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.clock.Now()
	if elapsed := now.Sub(b.last); elapsed > 0 { // a clock set back refills nothing
		b.tokens = min(b.burst, b.tokens+elapsed.Seconds()*b.qps)
		b.last = now
	}
	if b.tokens >= 1 {
		b.tokens--
		return 0
	}
	// The token we would reserve arrives once the debt and this token are repaid.
	wait := time.Duration((1 - b.tokens) / b.qps * float64(time.Second))
	if wait > b.maxDelay {
		return b.maxDelay
	}
	b.tokens--
	return wait
}

// Forget does nothing: the bucket keeps nothing per key.
func (b *TokenBucket[K]) Forget(K) {}

// NumRequeues returns 0: the bucket counts nothing per key.
func (b *TokenBucket[K]) NumRequeues(K) int { return 0 }
