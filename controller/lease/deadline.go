package lease

import "time"

// The renew deadline: a holder that has not renewed successfully for
// RenewDeadline stops acting, and an observer counts its Lease expired no
// sooner than the Lease's duration after it saw the last renewal. The deadline
// is measured from when that renewal was SENT, which is before the server
// stored it and before any observer could see it, so the holder always stops
// first, by at least LeaseDuration − RenewDeadline (5 s with the defaults),
// whatever the requests' latency. Measured from when the answer came back, a
// slow answer would move it late by as much as the request took.
//
// Nothing here waits: Holds answers for any moment, so that a caller can check
// it before each piece of work (sharding's gate does) or wait for Deadline
// (leader election's renew loop does). The renew policy — how long a renewal
// may take (RenewTimeout) and how long to wait before the next one
// (RetryWait) — is defined here once, for leader election and sharding.

// Deadline is when this holder must stop acting: RenewDeadline after its last
// successful write was sent. Zero while it holds nothing (before its first
// write, after a release, or once another holds the Lease).
func (h *Holder) Deadline() time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.sent.IsZero() {
		return time.Time{}
	}
	return h.sent.Add(h.cfg.RenewDeadline)
}

// Renewed is when this holder's last successful write was sent; zero while it
// holds nothing.
func (h *Holder) Renewed() time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sent
}

// RenewTimeout is the one renew policy, how long a renewal started at now may
// take, for leader election and sharding alike: what is left until the renew
// deadline, so that a request hung on a dead connection never keeps this holder
// acting past it; and once the deadline has passed (or before the first write),
// retry — one period of tries — so that a holder past its deadline (a sharding
// replica, which does not give up its Lease) can still come back. Leader
// election never renews past its deadline: it has lost by then.
func (h *Holder) RenewTimeout(now time.Time, retry time.Duration) time.Duration {
	if left := h.Deadline().Sub(now); left > 0 {
		return left
	}
	return retry
}

// RetryWait is the one renew policy's wait, how long a holder waits at now
// before its next renewal, for leader election and sharding alike: a
// RetryPeriod (retry), cut short so that it ends at the renew deadline when
// that comes sooner. A holder whose renewals fail so tries once more as its
// deadline passes, and notices the deadline then, not up to a RetryPeriod
// late. Before the first write, or once the deadline has passed, there is
// nothing to cut it short for: a RetryPeriod. (Leader election, which has
// lost by then, does not wait: it checks Holds first.)
func (h *Holder) RetryWait(now time.Time, retry time.Duration) time.Duration {
	if left := h.Deadline().Sub(now); left > 0 && left < retry {
		return left
	}
	return retry
}

// Holds reports whether this holder may act at now: it holds the Lease and its
// renew deadline has not passed.
func (h *Holder) Holds(now time.Time) bool {
	return now.Before(h.Deadline())
}
