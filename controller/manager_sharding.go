package controller

import (
	"context"
	"fmt"
	"github.com/kubewire/kubewire/apiclient"
	"maps"
	"slices"

	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/controller/metrics"
	"github.com/kubewire/kubewire/controller/sharding"
	"github.com/kubewire/kubewire/controller/trace"
)

// shard makes the Manager a member of a sharded group (ManagerOptions.Sharding):
// a Sharder that the informers asked for with Sharded fill from, and that gates
// the controllers reconciling their objects.
func (m *Manager) shard(cfg sharding.Config) error {
	cfg.Member = cfg.Member.Inherit(m.client, m.opts.Clock, m.opts.Log)
	sh, err := sharding.New(cfg)
	if err != nil {
		return err
	}
	m.sharder = sh
	sh.OnServe(m.reconcileNewlyServed)
	m.shardMetrics()
	return nil
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

// shardGate is a sharded controller's gate, c's hook before the staleness
// guard (admitter): its Request is reconciled only if its object is in the
// cache of the controller's own informer and in a range this replica serves,
// with a context that ends if the replica's renew deadline passes; any other
// is dropped (another replica's, or no longer cached). A controller whose own
// informer is not sharded (or that has none) is not gated: it runs on every
// replica.
func (m *Manager) shardGate(c *Controller) admitFunc {
	return func(ctx context.Context, req Request) admission {
		inf := m.shardedPrimary(c)
		if inf == nil {
			return admission{ctx: ctx}
		}
		obj, _ := inf.Get(req.Namespace, req.Name)
		admitted, release, ok := m.sharder.Admit(ctx, obj)
		if !ok {
			c.emit(trace.Event{Stage: trace.Controller, Verb: "skip", Key: req.String()})
			return admission{verdict: admitDrop}
		}
		return admission{ctx: admitted, release: release}
	}
}

// shardedPrimary is c's own informer when it is sharded, else nil.
func (m *Manager) shardedPrimary(c *Controller) *informer.Informer {
	c.mu.Lock()
	inf := c.primary
	c.mu.Unlock()
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.sharded[inf] {
		return nil
	}
	return inf
}

// reconcileNewlyServed queues, for every gated controller, each cached object in
// the ranges this replica has just begun to serve: what their old owner
// reconciled last is this replica's to reconcile now, changed or not (a
// Request the gate refused before the hand-over was dropped). They go in at
// low priority, as an initial list does.
func (m *Manager) reconcileNewlyServed(newly sharding.Set) {
	m.mu.Lock()
	controllers := append([]*Controller(nil), m.controllers...)
	m.mu.Unlock()
	for _, c := range controllers {
		inf := m.shardedPrimary(c)
		if inf == nil {
			continue
		}
		for _, obj := range inf.List() {
			if newly.Contains(sharding.Hash(m.sharder.Key().Of(obj))) {
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
	l := metrics.Labels{"identity": sh.Identity()}
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
func (m *Manager) Sharder() *sharding.Sharder { return m.sharder }
