package queue

import (
	"fmt"
	"sync"
	"time"

	"github.com/kubewire/kubewire/apiclient/clock"
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
// The arithmetic is the module's one token bucket, clock.Bucket (a clock set back
// refills nothing); this adds the lock, the clock and the horizon.
//
// The zero value is not usable; build one with NewTokenBucket. A TokenBucket is safe for
// concurrent use.
type TokenBucket[K comparable] struct {
	clock    Clock
	maxDelay time.Duration

	mu     sync.Mutex
	bucket clock.Bucket
}

// NewTokenBucket returns a full bucket of burst tokens refilling at qps a second, which
// never delays a key more than maxDelay. c nil means RealClock. It panics if qps
// is not positive or burst is negative: those are programming errors.
func NewTokenBucket[K comparable](c Clock, qps float64, burst int, maxDelay time.Duration) *TokenBucket[K] {
	if qps <= 0 || burst < 0 {
		panic(fmt.Sprintf("queue.NewTokenBucket: qps %v must be > 0 and burst %d >= 0", qps, burst))
	}
	if c == nil {
		c = RealClock{}
	}
	return &TokenBucket[K]{clock: c, maxDelay: maxDelay, bucket: clock.NewBucket(qps, burst, c.Now())}
}

// When takes a token and returns 0, or reserves the next one and returns how long
// until it arrives, or, if that is beyond maxDelay, returns maxDelay and takes
// nothing. The key is ignored: the bucket is shared. O(1).
func (b *TokenBucket[K]) When(K) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	d, _ := b.bucket.Reserve(b.clock.Now(), max(b.maxDelay, 0))
	return d
}

// Forget does nothing: the bucket keeps nothing per key.
func (b *TokenBucket[K]) Forget(K) {}

// NumRequeues returns 0: the bucket counts nothing per key.
func (b *TokenBucket[K]) NumRequeues(K) int { return 0 }
