package leaderelection

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubewire/kubewire/apiclient"
)

// ErrLeadershipLost is wrapped by the error Run returns when this replica stopped
// leading without being asked to: it could not renew within RenewDeadline, or it
// found another holder in the Lease. The work it led has stopped by then.
var ErrLeadershipLost = errors.New("leadership lost")

// Elector competes for one Lease on behalf of one replica, and runs that replica's
// work only while it holds the Lease.
//
// The zero value is not usable; build one with New. Run is called by one goroutine
// at a time; Status, IsLeader, Leader and Identity are safe from any goroutine, at
// any time.
type Elector struct {
	cfg    Config
	leases apiclient.Typed[Lease]
	clock  apiclient.Clock

	running atomic.Bool // Run is in progress; a second concurrent Run is a bug

	// Owned by Run's goroutine, read by nobody else.
	lease    *Lease    // the Lease as last read or written: its resourceVersion is the next write's precondition
	seenAt   time.Time // when, on our clock, lease's record was first seen as it is now
	reported string    // the holder last passed to OnNewLeader

	mu     sync.Mutex
	status Status // what Status returns; written by Run's goroutine under mu
}

// Status is what an Elector knows, as plain values for logs, /readyz and metrics.
// A value: copy it freely.
type Status struct {
	// Identity is this replica's holderIdentity.
	Identity string
	// Leader is the holder as last read from the Lease ("" when nobody holds it,
	// or before the first read). It may be a leader that has since died: a standby
	// cannot tell until the lease expires.
	Leader string
	// IsLeader is true from the moment this replica acquires the Lease until it
	// stops leading: lost, or Run's ctx done. Work runs only while it is true.
	IsLeader bool
	// Transitions is the Lease's leaseTransitions as last seen: how many times it
	// has changed holder.
	Transitions int32
	// ObservedAt is when, on this replica's clock, the Lease's record was last seen
	// to change. A standby takes over LeaseDuration after it.
	ObservedAt time.Time
	// RenewedAt is when this replica last wrote the Lease as its holder.
	RenewedAt time.Time
	// Failures counts the latest tries in a row whose request to read or write
	// the Lease failed (a missing namespace, a missing RBAC rule, an unreachable
	// server); any try that got an answer resets it, a contest lost included.
	// LastError says why the latest failed, naming the Lease; "" when Failures
	// is 0. A Manager is not ready while Failures is 2 or more.
	Failures  int
	LastError string
}

// New checks cfg, fills in its defaults, and returns an Elector that has not yet
// talked to the server.
func New(cfg Config) (*Elector, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Elector{
		cfg:    cfg,
		leases: apiclient.NewTyped[Lease](cfg.Client).Namespace(cfg.Namespace),
		clock:  cfg.Clock,
		status: Status{Identity: cfg.Identity},
	}, nil
}

// Run competes for the Lease until ctx is done or leadership is lost. Once it holds
// the Lease it calls onStartedLeading on a goroutine of its own, with a ctx that is
// cancelled when leading stops; Run then renews the Lease every RetryPeriod.
//
// Leading stops when ctx is done, when the Lease cannot be renewed for
// RenewDeadline, when another holder is found in it, or when onStartedLeading
// returns by itself. In every case Run cancels the work's ctx and waits for
// onStartedLeading to return; then, if ctx is done (or the work returned) and
// ReleaseOnCancel is set, it releases the Lease; then it calls onStoppedLeading;
// then it returns.
//
// Run returns nil when ctx is done or the work returned, and an error wrapping
// ErrLeadershipLost when leadership was lost. It does not compete again: a replica
// that lost the Lease may hold stale state, and the usual answer is to exit and be
// restarted (Run may be called again, though, once it has returned).
//
// A nil onStartedLeading holds the Lease until ctx is done; a nil onStoppedLeading
// is skipped. onStoppedLeading is called only if this replica did lead.
func (e *Elector) Run(ctx context.Context, onStartedLeading func(context.Context), onStoppedLeading func()) error {
	if !e.running.CompareAndSwap(false, true) {
		panic("leaderelection: Run called while another Run of the same Elector is in progress")
	}
	defer e.running.Store(false)

	if !e.acquire(ctx) {
		return nil // ctx done before we ever led
	}
	err := e.lead(ctx, onStartedLeading)
	if onStoppedLeading != nil {
		onStoppedLeading()
	}
	return err
}

// Status returns what the elector knows now.
func (e *Elector) Status() Status {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.status
}

// IsLeader reports whether this replica holds the Lease and its work may run.
func (e *Elector) IsLeader() bool { return e.Status().IsLeader }

// Leader returns the holder as last read from the Lease, "" when none.
func (e *Elector) Leader() string { return e.Status().Leader }

// Identity returns this replica's holderIdentity.
func (e *Elector) Identity() string { return e.cfg.Identity }

// observe records a Lease just read from or written to the server. If its record
// differs from the last one seen, the expiry countdown restarts now, on our clock:
// the remote renewTime is never compared with our time, so clock skew between
// replicas cannot make a live leader look dead (client-go's rule).
func (e *Elector) observe(l *Lease) {
	changed := e.lease == nil || !sameRecord(e.lease.Spec, l.Spec)
	e.lease = l
	if changed {
		e.seenAt = e.clock.Now()
	}
	e.mu.Lock()
	e.status.Leader = l.Spec.HolderIdentity
	e.status.Transitions = l.Spec.LeaseTransitions
	e.status.ObservedAt = e.seenAt
	e.mu.Unlock()

	if h := l.Spec.HolderIdentity; h != "" && h != e.reported {
		e.reported = h
		if e.cfg.OnNewLeader != nil {
			e.cfg.OnNewLeader(h)
		}
	}
}

// tried publishes the outcome of one try (a candidate's attempt, a leader's
// renewal): err is its failed request, nil when it got an answer.
func (e *Elector) tried(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err == nil {
		e.status.Failures, e.status.LastError = 0, ""
		return
	}
	e.status.Failures++
	e.status.LastError = fmt.Sprintf("lease %s/%s: %v", e.cfg.Namespace, e.cfg.Name, err)
}

// expiry is when, on our clock, the lease as last seen runs out: LeaseDuration
// (the holder's, as written in the Lease) after we saw its record change.
func (e *Elector) expiry() time.Time {
	d := e.cfg.LeaseDuration
	if s := e.lease.Spec.LeaseDurationSeconds; s > 0 {
		// The holder's promise, not ours: after a release it is 1 s, and a replica
		// configured with a longer duration must not wait that out.
		d = time.Duration(s) * time.Second
	}
	return e.seenAt.Add(d)
}

// setLeading publishes whether this replica leads, and since when it last renewed.
func (e *Elector) setLeading(leading bool, renewedAt time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.status.IsLeader = leading
	if !renewedAt.IsZero() {
		e.status.RenewedAt = renewedAt
	}
}

// record returns the spec this replica writes to hold the lease, at now: acquired
// now, unless it already held it (then acquireTime and the transition count stay).
func (e *Elector) record(old LeaseSpec, now time.Time) LeaseSpec {
	spec := old // keeps Strategy and PreferredHolder
	spec.HolderIdentity = e.cfg.Identity
	spec.LeaseDurationSeconds = int32(e.cfg.LeaseDuration / time.Second)
	spec.RenewTime = NewMicroTime(now)
	if old.HolderIdentity != e.cfg.Identity || old.AcquireTime == nil {
		spec.AcquireTime = NewMicroTime(now)
	}
	if old.HolderIdentity != e.cfg.Identity {
		spec.LeaseTransitions = old.LeaseTransitions + 1
	}
	return spec
}
