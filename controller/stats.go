package controller

import (
	"sync"
	"sync/atomic"
	"time"
)

// Stats is what the reconcile loop has done, as plain values for /metrics.
type Stats struct {
	Reconciles, Errors, Dropped, Panics uint64
	// Requeues counts the successful Reconciles that asked for Result.Requeue.
	Requeues uint64
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
}

func (s *stats) observe(took time.Duration, err error) {
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
	return Stats{Reconciles: s.total, Errors: s.errors, Dropped: s.dropped.Load(), Panics: s.panics.Load(), Requeues: s.requeues.Load(), TimeSpent: s.spent}
}
