package controller

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubewire/kubewire/controller/metrics"
)

// Stats is what the reconcile loop has done, as plain values for /metrics.
type Stats struct {
	Reconciles, Errors, Dropped, Panics uint64
	// Requeues counts the successful Reconciles that asked for Result.Requeue.
	Requeues uint64
	// Terminal counts the errors marked Terminal (also in Errors): not retried.
	Terminal uint64
	// Active is how many Reconciles are running now.
	Active int64
	// TimeSpent is the total time spent in Reconcile.
	TimeSpent time.Duration
}

// Stats returns a snapshot.
func (c *Controller) Stats() Stats { return c.stats.snapshot() }

type stats struct {
	mu                        sync.Mutex
	total, errors             uint64
	spent                     time.Duration
	dropped, panics, requeues atomic.Uint64
	terminal                  atomic.Uint64
	active                    atomic.Int64
	durations                 *metrics.Histogram // each Reconcile's, in seconds
}

func (s *stats) observe(took time.Duration, err error) {
	s.durations.ObserveDuration(took)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.total++
	if err != nil {
		s.errors++
	}
	s.spent += took
}

func (s *stats) snapshot() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Stats{Reconciles: s.total, Errors: s.errors, Dropped: s.dropped.Load(), Panics: s.panics.Load(), Requeues: s.requeues.Load(),
		Terminal: s.terminal.Load(), Active: s.active.Load(), TimeSpent: s.spent}
}
