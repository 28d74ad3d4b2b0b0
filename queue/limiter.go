package queue

import "time"

// Limiter decides how long a key waits before it is retried. The queue asks it in
// AddRateLimited; a worker tells it, through Forget, that a key succeeded.
//
// Implementations must be safe for concurrent use: workers call them at once.
type Limiter[K comparable] interface {
	// When records one more failure of key and returns how long to wait before
	// retrying it.
	When(key K) time.Duration
	// Forget clears what the limiter remembers about key: the next failure counts as
	// the first.
	Forget(key K)
	// NumRequeues returns how many failures of key are remembered.
	NumRequeues(key K) int
}

// The default controller limiter's settings, the same as client-go's
// DefaultControllerRateLimiter except for DefaultBucketMaxDelay, which client-go lacks.
const (
	DefaultBaseDelay      = 5 * time.Millisecond // first retry of a key
	DefaultMaxDelay       = 1000 * time.Second   // per-key backoff stops doubling here
	DefaultQPS            = 10                   // retries per second, overall, once the burst is spent
	DefaultBurst          = 100                  // retries allowed at once
	DefaultBucketMaxDelay = DefaultMaxDelay      // no retry is scheduled further out than this
)

// DefaultLimiter returns client-go's controller limiter: each key backs off from
// 5 ms, doubling up to 1000 s, and all keys together are held to 10 retries per
// second after a burst of 100, the later of the two delays winning. No key waits more
// than 1000 s. clock nil means RealClock. (Package controller's default is this
// with the per-key backoff capped at 5 min: controller.DefaultMaxBackoff.)
func DefaultLimiter[K comparable](clock Clock) Limiter[K] {
	return MaxOf(
		NewExponential[K](DefaultBaseDelay, DefaultMaxDelay),
		NewTokenBucket[K](clock, DefaultQPS, DefaultBurst, DefaultBucketMaxDelay),
	)
}

// AddRateLimited adds key after the delay the queue's Limiter gives it: call it when
// processing key failed and should be retried. O(log n), plus the limiter's cost.
func (q *Queue[K]) AddRateLimited(key K) {
	if q.ShuttingDown() {
		return // do not charge the limiter for a retry that will not happen
	}
	q.AddAfter(key, q.limiter.When(key))
}

// Forget tells the limiter that key succeeded: its next failure starts the backoff
// afresh. Call it after processing key succeeded, or when giving up on it. It does
// not remove key from the queue.
func (q *Queue[K]) Forget(key K) { q.limiter.Forget(key) }

// NumRequeues returns how many failures of key the limiter remembers: how many times
// in a row it has been retried.
func (q *Queue[K]) NumRequeues(key K) int { return q.limiter.NumRequeues(key) }

// MaxOf returns a limiter that asks each of limiters and waits the longest of their
// delays. Every limiter sees every When, so each keeps its own count.
func MaxOf[K comparable](limiters ...Limiter[K]) Limiter[K] {
	return maxOf[K](limiters)
}

// maxOf is MaxOf's limiter. Safe for concurrent use if its limiters are; its zero
// value (no limiters) never delays.
type maxOf[K comparable] []Limiter[K]

func (m maxOf[K]) When(key K) time.Duration {
	var d time.Duration
	for _, l := range m {
		d = max(d, l.When(key))
	}
	return d
}

func (m maxOf[K]) Forget(key K) {
	for _, l := range m {
		l.Forget(key)
	}
}

func (m maxOf[K]) NumRequeues(key K) int {
	n := 0
	for _, l := range m {
		n = max(n, l.NumRequeues(key))
	}
	return n
}
