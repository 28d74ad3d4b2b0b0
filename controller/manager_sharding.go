package controller

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/kubewire/kubewire/apiclient"

	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/controller/metrics"
	"github.com/kubewire/kubewire/controller/sharding"
	"github.com/kubewire/kubewire/controller/trace"
	"github.com/kubewire/kubewire/fifo"
	"github.com/kubewire/kubewire/listwatch"
)

// shardRing is what a Manager needs of the group of replicas its controllers'
// work is shared among (ManagerOptions.Sharding): which objects are this
// replica's, word when that changes, and a Run. Package sharding's Sharder is
// the one there is; the Manager knows it by these methods alone.
type shardRing interface {
	// Run takes part in the group until ctx is done.
	Run(ctx context.Context) error
	// Admit says whether obj (nil: not cached) may be reconciled now; if so,
	// with the context it returns, and release must be called when the
	// reconcile is over.
	Admit(ctx context.Context, obj *apiclient.Object) (_ context.Context, release func(), ok bool)
	// Owns reports whether obj is in the ranges served now.
	Owns(obj *apiclient.Object) bool
	// Served registers fn, called whenever this replica begins to serve ranges
	// (their lists cached), with a test of the objects newly its own.
	Served(fn func(newly func(*apiclient.Object) bool))
	// Source is what fills inf, a sharded informer of rc, through sink, each
	// Reflector made by build: this replica's share alone.
	Source(inf *informer.Informer, rc apiclient.ResourceClient, lw listwatch.Options, sink fifo.Sink[*apiclient.Object],
		build func(listwatch.Options, fifo.Sink[*apiclient.Object]) informer.Runner) informer.Runner
	// Status is what /metrics and /readyz say of the replica's share.
	Status() sharding.Status
}

var _ shardRing = (*sharding.Sharder)(nil)

// shard makes the Manager a member of a sharded group (ManagerOptions.Sharding):
// a Sharder that fills the informers of the controllers' For resources
// (sourceFor) and gates those controllers (shardGate).
func (m *Manager) shard(cfg sharding.Config) error {
	cfg.Member = cfg.Member.Inherit(m.client, m.opts.Clock, m.opts.Log)
	sh, err := sharding.New(cfg)
	if err != nil {
		return err
	}
	m.join(sh)
	return nil
}

// join makes ring the Manager's shard ring, before any controller is
// described: it is told to queue what becomes this replica's, and its
// Status is served on /metrics.
func (m *Manager) join(ring shardRing) {
	m.sharder = ring
	ring.Served(m.reconcileNewlyServed)
	m.shardMetrics()
}

// shardFor makes res a sharded resource, when the Manager shards: Builder.For
// calls it, so that every informer of the resource a controller reconciles
// caches this replica's share, the For's own and a Lister's alike, whether it
// was asked for before For or after: what fills an informer is settled when
// the Manager runs (sourceFor). Only an informer of res already running (a
// controller completed while the Manager runs, with an informer of its For
// caching everything) cannot be made to shard: that is an error, not a second
// cache.
func (m *Manager) shardFor(res apiclient.Resource) error {
	if m.sharder == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	id := res.String() + "/" + res.Version
	if m.shardedRes[id] {
		return nil
	}
	for key := range m.informers {
		if m.running != nil && key.Resource == res.String() && key.Version == res.Version {
			return fmt.Errorf("For(%s) with sharding: an informer of %s caches everything already, and the Manager runs; complete the controller before Run, so that every cache of it is this replica's share", res, res)
		}
	}
	m.shardedRes[id] = true
	return nil
}

// shardGate is the gate of c, a controller of a sharding Manager, and the
// first half of its hook (admitter): its Request is reconciled only if its
// object is in the cache of the controller's own informer and in a range this
// replica serves, with a context that ends if the replica's renew deadline
// passes; any other is dropped (another replica's, or no longer cached). The
// informer and the ring are fixed at Complete, and read without a lock.
func (m *Manager) shardGate(c *Controller) admitFunc {
	primary, ring := c.primary, m.sharder
	return func(ctx context.Context, req Request) admission {
		obj, _ := primary.Get(req.Namespace, req.Name)
		admitted, release, ok := ring.Admit(ctx, obj)
		if !ok {
			c.emit(trace.Event{Stage: trace.Controller, Verb: "skip", Key: req.String()})
			return admission{verdict: admitDrop}
		}
		return admission{ctx: admitted, release: release}
	}
}

// gated reports whether a sharding Manager gates its controllers: it fills
// the informers of their For resources itself (sourceFor), so each
// controller's own informer caches this replica's share. With
// ManagerOptions.Source the informers are the caller's, and nothing is gated.
func (m *Manager) gated() bool { return m.sharder != nil && m.opts.Source == nil }

// reconcileNewlyServed queues, for every gated controller, each cached object
// the ring says is newly this replica's: what their old owner reconciled last
// is this replica's to reconcile now, changed or not (a Request the gate
// refused before the hand-over was dropped). They go in at low priority, as an
// initial list does.
func (m *Manager) reconcileNewlyServed(newly func(*apiclient.Object) bool) {
	if !m.gated() {
		return
	}
	m.mu.Lock()
	controllers := append([]*Controller(nil), m.controllers...)
	m.mu.Unlock()
	for _, c := range controllers {
		for _, obj := range c.primary.List() {
			if newly(obj) {
				c.add(RequestFor(obj), true, nil)
			}
		}
	}
}

// ownedObjects counts the cached objects of sharded informers in the ranges
// served now.
func (m *Manager) ownedObjects() int {
	m.mu.Lock()
	sharded := slices.Collect(maps.Keys(m.sharded))
	m.mu.Unlock()
	n := 0
	for _, inf := range sharded {
		for _, obj := range inf.List() {
			if m.sharder.Owns(obj) {
				n++
			}
		}
	}
	return n
}

func (m *Manager) shardMetrics() {
	sh := m.sharder
	l := metrics.Labels{"identity": sh.Status().Identity}
	m.reg.GaugeFunc("kubewire_shard_members", "Live members of the sharded group, this replica included.", l, func() float64 { return float64(len(sh.Status().Members)) })
	m.reg.GaugeFunc("kubewire_shard_ranges", "Hash ranges this replica reconciles now.", l, func() float64 { return float64(len(sh.Status().Serving)) })
	m.reg.GaugeFunc("kubewire_shard_fraction", "The share of the hash space this replica reconciles now, 0 to 1.", l, func() float64 { return sh.Status().Serving.Size() })
	m.reg.GaugeFunc("kubewire_shard_objects_owned", "Cached objects of sharded informers in the ranges this replica reconciles.", l, func() float64 { return float64(m.ownedObjects()) })
	m.reg.GaugeFunc("kubewire_shard_server_side", "Sharded informers whose API server filters for them (shardSelector), not this replica.", l, func() float64 { return float64(sh.Status().ServerSide) })
	m.reg.CounterFunc("kubewire_shard_handovers_total", "Times this replica began to serve ranges it did not serve before.", l, func() float64 { return float64(sh.Status().Handovers) })
	m.reg.HistogramFunc("kubewire_shard_handover_duration_seconds", "From the membership change that moved ranges to this replica (a join or clean stop when seen, a dead member's last renewal seen) until it serves them, their list cached.", l, func() metrics.HistogramSnapshot { return sh.Status().Durations })
}

// shardReady is /readyz's word on sharding: which ranges this replica serves,
// or why it is not ready (its Lease cannot be written or read).
func (m *Manager) shardReady() (string, error) {
	st := m.sharder.Status()
	if st.LastError != "" {
		return "", fmt.Errorf("%s", st.LastError)
	}
	filter := "filtered by this replica"
	if st.Sources > 0 && st.ServerSide == st.Sources {
		filter = "filtered by the API server's shardSelector"
	}
	serving := st.Serving.String()
	if serving == "" {
		serving = "nothing yet"
	}
	members := fmt.Sprintf("%d members", len(st.Members))
	if len(st.Members) == 1 {
		members = "the only member"
	}
	return fmt.Sprintf("shard %s: serving %s (%.1f%% of the hash space), %s, %s", st.Identity, serving, 100*st.Serving.Size(), members, filter), nil
}

// Sharder is the Manager's member of its sharded group (its Status says what
// this replica serves), nil without ManagerOptions.Sharding.
func (m *Manager) Sharder() *sharding.Sharder {
	sh, _ := m.sharder.(*sharding.Sharder)
	return sh
}
