package sharding

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/lease"
	"github.com/kubewire/kubewire/controller/metrics"
)

// Sharder is one replica's member of a group: it holds the replica's Lease,
// reads the others', computes the assignment, hands ranges over (sharder.go's
// round), and gates reconciles (Admit). Build it with New, make what fills
// each sharded informer with Source, Run it. A Manager (ManagerOptions.Sharding)
// does all three, and knows it by the methods of its shardRing alone
// (controller/manager_sharding.go): Run, Admit, Owns, Served, Source, Status.
type Sharder struct {
	cfg      Config
	rc       apiclient.ResourceClient // the group's Leases: list, watch, get, delete a dead member's
	name     string                   // this replica's Lease
	holder   *lease.Holder            // writes it, and keeps its renew deadline
	observer *lease.Observer          // judges every member's Lease on this replica's clock
	gate     *gate

	mu        sync.Mutex
	sources   []*source
	onServe   []func(newly Set)
	members   []string
	claim     Set
	handovers int
	lastErr   string
	waiting   string // Status.Waiting
	durations *metrics.Histogram

	// Only Run's goroutine touches these.
	live         map[string]bool // the Leases of the members live at the last read
	lostAt       time.Time       // the last read's newly dead members were last seen renewing then (the earliest), else zero
	pendingSince time.Time       // when the target last stopped being what is served
	held         *lease.Sighting // this replica's Lease as another instance holds it, nil when it is its own
}

// handoverBuckets are for hand-overs from a second (a clean stop) to a lease
// duration and more (a crash).
var handoverBuckets = []float64{0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60}

// New checks cfg and builds a Sharder.
func New(cfg Config) (*Sharder, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &Sharder{
		cfg:       cfg,
		rc:        cfg.Client.Resource(apiclient.Leases).Namespace(cfg.Namespace),
		name:      leaseName(cfg.Name, cfg.Identity),
		observer:  lease.NewObserver(cfg.LeaseDuration, cfg.Logger),
		gate:      newGate(),
		durations: metrics.NewHistogram(handoverBuckets),
	}
	s.holder = lease.NewHolder(lease.HolderConfig{Client: cfg.Client, Namespace: cfg.Namespace, Name: s.name, Identity: cfg.Identity,
		LeaseDuration: cfg.LeaseDuration, RenewDeadline: cfg.RenewDeadline, Clock: cfg.Clock, Stamp: s.stamp})
	return s, nil
}

// Identity is this replica's name among the members.
func (s *Sharder) Identity() string { return s.cfg.Identity }

// OnServe registers fn, called with the ranges this replica has just begun to
// serve, after their lists are in the caches: the Manager queues their objects
// for reconciling there. It is called again with the ranges served when a
// renewal comes after the renew deadline had passed and the gate refused
// reconciles in them meanwhile. Register before Run.
func (s *Sharder) OnServe(fn func(newly Set)) {
	s.mu.Lock()
	s.onServe = append(s.onServe, fn)
	s.mu.Unlock()
}

// Served is OnServe for a caller that knows objects, not hashes: fn is given
// a test of whether an object is in the ranges newly served (by the Key the
// group shards by). The Manager queues what the test passes of each gated
// controller's cache.
func (s *Sharder) Served(fn func(newly func(*apiclient.Object) bool)) {
	key := s.cfg.Key
	s.OnServe(func(newly Set) {
		fn(func(obj *apiclient.Object) bool { return newly.Contains(Hash(key.Of(obj))) })
	})
}

// Admit asks whether obj may be reconciled now. If so, the reconcile runs
// with the context Admit returns (ctx's, also cancelled if this replica's
// renew deadline passes while it runs: the others may take its range
// LeaseDuration − RenewDeadline later) and must call release when it is over;
// until then no range of obj's is handed over. A nil obj (not in the cache) is
// never admitted.
func (s *Sharder) Admit(ctx context.Context, obj *apiclient.Object) (_ context.Context, release func(), ok bool) {
	if obj == nil {
		return nil, nil, false
	}
	return s.gate.admit(ctx, Hash(s.cfg.Key.Of(obj)), s.cfg.Clock.Now())
}

// Owns reports whether obj is in the ranges served now.
func (s *Sharder) Owns(obj *apiclient.Object) bool {
	return s.gate.get().Contains(Hash(s.cfg.Key.Of(obj)))
}

// Status is what a Sharder knows, for metrics and /readyz.
type Status struct {
	Identity  string
	Members   []string // the live members, this one included, sorted
	Serving   Set      // the ranges reconciled now
	Claimed   Set      // the ranges the Lease claims: Serving and those being taken over
	Handovers int      // ranges taken over (each change of Serving that grew it)
	LastError string   // the last failed Lease request, "" after a success
	// Waiting says what this replica waits for before it serves its share,
	// and on whom ("for member r2 (Lease kubewire-foo-shard-r2) to release
	// 8000000000000000-ffffffffffffffff…"); "" when it is not waiting.
	Waiting   string
	Durations metrics.HistogramSnapshot // hand-overs, from the membership change (a dead member: its last renewal seen) to serving
	// ServerSide counts the sharded informers whose server filters for them.
	Sources, ServerSide int
}

// Status reports the Sharder's state; safe from any goroutine.
func (s *Sharder) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{Identity: s.cfg.Identity, Members: slices.Clone(s.members), Serving: s.gate.get(), Claimed: s.claim,
		Handovers: s.handovers, LastError: s.lastErr, Waiting: s.waiting, Durations: s.durations.Snapshot(), Sources: len(s.sources)}
	for _, src := range s.sources {
		if src.serverSide() {
			st.ServerSide++
		}
	}
	return st
}

// Run takes part in the group until ctx is done: a round every RetryPeriod,
// the wait cut short at the renew deadline when that comes sooner (package
// lease's renew policy, Holder.RetryWait: a replica whose renewals fail tries
// once more as its deadline passes), or at once when a member's Lease changes
// (a watch wakes it). When ctx ends it
// stops admitting reconciles, waits for those running (up to LeaseDuration),
// and deletes its Lease, so that the others take its ranges over at once.
func (s *Sharder) Run(ctx context.Context) error {
	wake := make(chan struct{}, 1)
	watchDone := make(chan struct{})
	go func() { defer close(watchDone); s.watchLeases(ctx, wake) }() // waited for below
	defer func() { <-watchDone }()
	deadlineDone := make(chan struct{})
	go func() { defer close(deadlineDone); s.watchDeadline(ctx) }() // waited for below
	defer func() { <-deadlineDone }()
	for {
		s.round(ctx)
		select {
		case <-ctx.Done():
			s.leave()
			return nil
		case <-wake:
		case <-s.cfg.Clock.After(s.holder.RetryWait(s.cfg.Clock.Now(), s.cfg.RetryPeriod)):
		}
	}
}

// watchDeadline cancels the running reconciles' contexts when the renew
// deadline passes without a renewal, on its own goroutine: the round that
// would notice may be stuck in a slow request.
func (s *Sharder) watchDeadline(ctx context.Context) {
	for {
		// Before the first renewal, or past the deadline, look again a
		// RetryPeriod later.
		wait, now := s.cfg.RetryPeriod, s.cfg.Clock.Now()
		if until := s.gate.deadline(); until.After(now) {
			wait = until.Sub(now)
		}
		select {
		case <-ctx.Done():
			return
		case <-s.cfg.Clock.After(wait):
		}
		if n := s.gate.lapsed(s.cfg.Clock.Now()); n > 0 {
			s.cfg.Logger.Warn("sharding: renew deadline passed; cancelled the contexts of the reconciles still running", "lease", s.name, "reconciles", n)
		}
	}
}

// round is one turn of the protocol:
//
//  1. renew: write this replica's Lease (renewTime, the ranges it claims);
//     past RenewDeadline without a successful write, stop serving;
//  2. read every member's Lease; the live ones are the members;
//  3. target: this replica's share of Assign(members);
//  4. release what is served or claimed outside the target: stop admitting
//     it, wait for its reconciles, then write the smaller claim;
//  5. take over the rest of the target once no live member claims any of it:
//     claim it, read again, and withdraw if another claimed it meanwhile;
//     then have the caches list it, and serve it once they hold it.
func (s *Sharder) round(ctx context.Context) {
	if err := s.renew(ctx); err != nil {
		if errors.Is(err, errHeld) {
			return // another instance holds the Lease: nothing is served, nothing to do but wait
		}
		if !s.holder.Holds(s.cfg.Clock.Now()) && (!s.claimed().Empty() || !s.gate.get().Empty()) {
			s.cfg.Logger.Warn("sharding: could not renew the Lease for the renew deadline; stopping every range", "lease", s.name, "error", err)
			// Forget the claim at once, drained or not: the others take its
			// ranges once the Lease has looked dead to them for LeaseDuration,
			// so whatever this replica serves again, it must claim and confirm
			// afresh, never resume on an old claim.
			s.setClaim(nil)
			s.narrow(ctx, nil)
		}
		return
	}
	others, err := s.readMembers(ctx)
	if err != nil || s.held != nil {
		return
	}
	target := Assign(s.memberList(others))[s.cfg.Identity]
	served := s.gate.get()
	if !target.Equal(served) && s.pendingSince.IsZero() {
		// A hand-over is timed from the membership change that caused it: a
		// join or a clean stop is seen at once (the watch wakes this round),
		// but a member that died changed the assignment when it last renewed,
		// a lease duration before this replica counts it gone.
		s.pendingSince = s.cfg.Clock.Now()
		if !s.lostAt.IsZero() {
			s.pendingSince = s.lostAt
		}
	}

	// 4. Release.
	if !served.Minus(target).Empty() || !s.claimed().Minus(target).Empty() {
		if !s.narrow(ctx, served.Intersect(target)) {
			return
		}
		if s.setClaim(s.claimed().Intersect(target)); s.renew(ctx) != nil {
			return
		}
		s.cfg.Logger.Info("sharding: released", "ranges", served.Minus(target).String())
		s.logServing(nil, 0)
	}

	// 5. Take over.
	served = s.gate.get()
	if pending := target.Minus(s.claimed()); !pending.Empty() {
		if o, ok := claimedBy(others, pending); ok {
			// Said at INFO, once per change, and on /readyz: a replica that
			// serves nothing must say on whom it waits (issue 29: a Lease
			// claiming ranges for 3600 s stalled every replica, silently).
			waiting := fmt.Sprintf("for member %q (Lease %s) to release %s; its claim holds until its Lease is left unrenewed for %s",
				o.holder(), o.name(), o.claim.Intersect(pending), o.Honoured)
			if s.setWaiting(waiting) {
				s.cfg.Logger.Info("sharding: waiting for a member to release ranges", "member", o.holder(), "lease", o.name(),
					"ranges", o.claim.Intersect(pending).String(), "honoured", o.Honoured)
			}
			return
		}
		confirmed := s.claimed()
		s.setClaim(confirmed.Union(pending))
		if s.renew(ctx) != nil {
			// The write may or may not have reached the server; either way
			// the larger claim was not confirmed by a LIST after it, so it
			// is not this replica's: the next round claims afresh.
			s.setClaim(confirmed)
			return
		}
		again, err := s.readMembers(ctx)
		if s.held != nil {
			return // hold forgot every claim and stopped the gate
		}
		if _, taken := claimedBy(again, pending); err != nil || taken {
			// Two replicas claimed at once (their member lists differed for a
			// moment): whoever reads the other's claim withdraws; one of them
			// always does, since each read follows its own write.
			s.setClaim(served)
			_ = s.renew(ctx)
			return
		}
	}
	s.setWaiting("")
	if target.Equal(served) {
		s.pendingSince = time.Time{}
		// A release leaves the caches listing more than is served: they list
		// the target alone from now on (no need to wait for it).
		for _, src := range s.sourceList() {
			src.list(target)
		}
		return
	}
	// The claim covers target and was confirmed: list it, then serve it.
	wait, cancel := context.WithTimeout(ctx, s.cfg.RetryPeriod)
	defer cancel()
	for _, src := range s.sourceList() {
		if !src.cache(wait, target) {
			return // still listing; the next round waits again
		}
	}
	newly := target.Minus(served)
	took := s.cfg.Clock.Now().Sub(s.pendingSince)
	s.mu.Lock()
	s.handovers++
	s.durations.ObserveDuration(took)
	s.mu.Unlock()
	// Counted first, so that a Status that shows the range served also
	// shows its hand-over.
	s.gate.widen(target)
	s.pendingSince = time.Time{}
	s.logServing(newly, took)
	s.serving(newly)
}

// serving hands ranges this replica has just begun to serve (or serves again
// after a lapse of its renew deadline) to the OnServe functions.
func (s *Sharder) serving(newly Set) {
	if newly.Empty() {
		return
	}
	s.mu.Lock()
	fns := slices.Clone(s.onServe)
	s.mu.Unlock()
	for _, fn := range fns {
		fn(newly)
	}
}

// narrow stops admitting reconciles outside to and waits up to RetryPeriod for
// those running; false if some still run (the next round waits again).
func (s *Sharder) narrow(ctx context.Context, to Set) bool {
	wait, cancel := context.WithTimeout(ctx, s.cfg.RetryPeriod)
	defer cancel()
	if err := s.gate.narrow(wait, to); err != nil {
		s.cfg.Logger.Info("sharding: reconciles still running in ranges being released; waiting", "serving", to.String())
		return false
	}
	if to.Empty() {
		s.setClaim(nil) // serving nothing: claim nothing, so a later claim is confirmed afresh
	}
	return true
}

// logServing says what is served now, with the members it was computed from,
// after every change: what was just taken over and how long that took, or
// nothing new after a release.
func (s *Sharder) logServing(newly Set, took time.Duration) {
	s.mu.Lock()
	members := len(s.members)
	s.mu.Unlock()
	s.cfg.Logger.Info("sharding: serving", "ranges", s.gate.get().String(), "new", newly.String(), "members", members, "took", took.Round(time.Millisecond))
}

func (s *Sharder) claimed() Set {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.claim
}

func (s *Sharder) setClaim(c Set) {
	s.mu.Lock()
	s.claim = c
	s.mu.Unlock()
}

func (s *Sharder) sourceList() []*source {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.sources)
}

// memberList is the live members' identities with this replica's, sorted, and
// remembered for Status.
func (s *Sharder) memberList(others map[string]member) []string {
	ids := []string{s.cfg.Identity}
	for _, o := range others {
		ids = append(ids, o.holder())
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	s.mu.Lock()
	changed := !slices.Equal(ids, s.members)
	s.members = ids
	s.mu.Unlock()
	if changed {
		s.cfg.Logger.Info("sharding: members", "members", ids)
	}
	return ids
}

// claimedBy finds a member whose claim overlaps rs.
func claimedBy(others map[string]member, rs Set) (member, bool) {
	for _, o := range others {
		if o.claim.Overlaps(rs) {
			return o, true
		}
	}
	return member{}, false
}

// setWaiting sets Status.Waiting and reports whether it changed.
func (s *Sharder) setWaiting(w string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	changed := s.waiting != w
	s.waiting = w
	return changed
}

// fail notes a failed Lease request for Status; one cut short by the stop is
// not a failure worth a warning.
func (s *Sharder) fail(ctx context.Context, what string, err error) error {
	err = fmt.Errorf("sharding: %s: %w", what, err)
	if ctx.Err() != nil {
		return err
	}
	s.mu.Lock()
	s.lastErr = err.Error()
	s.mu.Unlock()
	s.cfg.Logger.Warn(err.Error())
	return err
}

func (s *Sharder) ok() {
	s.mu.Lock()
	s.lastErr = ""
	s.mu.Unlock()
}
