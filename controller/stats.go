package controller

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubewire/kubewire/controller/metrics"
)

// Stats is what the reconcile loop has done, as plain values for /metrics.
type Stats struct {
	// Reconciles counts Reconcile calls; Errors those that returned an error
	// (panics included, Terminal ones too).
	Reconciles, Errors, Dropped, Panics uint64
	// Requeues counts the successful Reconciles that asked for Result.Requeue;
	// RequeuedAfter those that asked for Result.RequeueAfter.
	Requeues, RequeuedAfter uint64
	// Terminal counts the errors marked Terminal (also in Errors): not retried.
	Terminal uint64
	// StaleSkips counts the Requests taken from the queue and not given to
	// Reconcile, because a cache had not yet shown what an earlier reconcile of
	// theirs wrote (staleguard.go). They are not in Reconciles.
	StaleSkips uint64
	// Active is how many Reconciles are running now.
	Active int64
	// Backoff is how many Requests wait out a backoff now: requeued after an
	// error, a Result.Requeue or a stale skip, and not taken by a worker since.
	// A Result.RequeueAfter is a time asked for, not a backoff: not counted.
	Backoff int
	// TimeSpent is the total time spent in Reconcile.
	TimeSpent time.Duration
}

// Stats returns a snapshot.
func (c *Controller) Stats() Stats { return c.stats.snapshot() }

// result is how a Request taken from the queue ended: the label of
// kubewire_reconcile_total (manager_metrics.go). Every one but staleSkip is a
// Reconcile call.
type result int

const (
	success      result = iota // ok: Forget
	requeueAfter               // ok, Result.RequeueAfter: AddAfter
	requeue                    // ok, Result.Requeue: AddRateLimited
	failure                    // an error (or a panic): AddRateLimited, or dropped
	terminal                   // a Terminal error: Forget
	staleSkip                  // not reconciled: a cache lags this controller's writes
	nResults
)

// resultNames are the values of the result label, in the order of result.
var resultNames = [nResults]string{"success", "requeue_after", "requeue", "error", "terminal", "stale_skip"}

type stats struct {
	mu        sync.Mutex // guards byResult and spent: one scrape sees one outcome whole
	byResult  [nResults]uint64
	spent     time.Duration
	dropped   atomic.Uint64
	panics    atomic.Uint64
	active    atomic.Int64
	durations *metrics.Histogram // each Reconcile's, in seconds

	// backoff holds the Requests waiting out a backoff (Stats.Backoff);
	// nBackoff is its size, so that a worker taking a Request with none waiting
	// pays one atomic load.
	backoffMu sync.Mutex
	backoff   map[Request]struct{}
	nBackoff  atomic.Int64
}

// observe counts one Request's outcome: a Reconcile that took took, or a stale
// skip (took is then not observed).
func (s *stats) observe(r result, took time.Duration) {
	if r != staleSkip {
		s.durations.ObserveDuration(took)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.byResult[r]++
	s.spent += took
}

// backingOff notes that req waits out a backoff.
func (s *stats) backingOff(req Request) {
	s.backoffMu.Lock()
	defer s.backoffMu.Unlock()
	if s.backoff == nil {
		s.backoff = map[Request]struct{}{}
	}
	if _, ok := s.backoff[req]; !ok {
		s.backoff[req] = struct{}{}
		s.nBackoff.Add(1)
	}
}

// taken notes that a worker took req: whatever brought it back, it no longer
// waits.
func (s *stats) taken(req Request) {
	if s.nBackoff.Load() == 0 {
		return
	}
	s.backoffMu.Lock()
	defer s.backoffMu.Unlock()
	if _, ok := s.backoff[req]; ok {
		delete(s.backoff, req)
		s.nBackoff.Add(-1)
	}
}

// count is how many Requests ended with r.
func (s *stats) count(r result) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byResult[r]
}

func (s *stats) snapshot() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.byResult
	return Stats{
		Reconciles:    n[success] + n[requeueAfter] + n[requeue] + n[failure] + n[terminal],
		Errors:        n[failure] + n[terminal],
		Requeues:      n[requeue],
		RequeuedAfter: n[requeueAfter],
		Terminal:      n[terminal],
		StaleSkips:    n[staleSkip],
		Dropped:       s.dropped.Load(),
		Panics:        s.panics.Load(),
		Active:        s.active.Load(),
		Backoff:       int(s.nBackoff.Load()),
		TimeSpent:     s.spent,
	}
}
