package queue

import (
	"sync"
	"time"

	"github.com/kubewire/kubewire/apiclient/clock"
)

// Exponential is the per-key backoff: the n-th failure in a row of a key waits
// Base·2ⁿ⁻¹, up to Max — clock.Backoff's series with Factor 2, one count per key. With the defaults (5 ms, 1000 s) a key waits 5 ms, 10 ms,
// 20 ms, … and reaches the cap at its 19th failure (5 ms·2¹⁸ ≈ 1311 s > 1000 s).
//
// It remembers one counter per key that has failed and not been forgotten: a worker
// must call Forget (through Queue.Forget) when a key succeeds or is given up on, or
// the map keeps every key that ever failed.
//
// The zero value never delays (Base 0) but still counts; build one with
// NewExponential. An Exponential is safe for concurrent use.
type Exponential[K comparable] struct {
	backoff clock.Backoff

	mu       sync.Mutex
	failures map[K]int
}

// NewExponential returns a backoff that starts at base and stops doubling at max.
func NewExponential[K comparable](base, max time.Duration) *Exponential[K] {
	return &Exponential[K]{backoff: clock.Backoff{Initial: base, Factor: 2, Max: max}, failures: make(map[K]int)}
}

// When counts one more failure of key and returns base·2^(failures before it),
// capped at max; it never overflows. O(log max/base).
func (e *Exponential[K]) When(key K) time.Duration {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.failures == nil {
		e.failures = make(map[K]int)
	}
	n := e.failures[key]
	e.failures[key] = n + 1
	return e.backoff.Step(n)
}

// Forget drops key's failure count. O(1).
func (e *Exponential[K]) Forget(key K) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.failures, key)
}

// NumRequeues returns key's failure count. O(1).
func (e *Exponential[K]) NumRequeues(key K) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.failures[key]
}
