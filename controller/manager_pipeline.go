package controller

import (
	"slices"

	"github.com/kubewire/kubewire/controller/pipeline"
	"github.com/kubewire/kubewire/listwatch"
)

// Pipeline returns every stage's state now. It costs a few locks per informer,
// handler and controller: call it a few times a second, not per event.
func (m *Manager) Pipeline() pipeline.Snapshot {
	// Under the Manager's lock, only which components there are; their own state
	// is read after, under their own locks.
	m.mu.Lock()
	infs, ctrls, elector := slices.Clone(m.order), m.controllers, m.elector
	m.mu.Unlock()

	p := pipeline.Snapshot{Leader: pipeline.Leader{Elected: elector != nil, Leading: elector == nil || elector.IsLeader()}}
	for _, inf := range infs {
		p.Informers = append(p.Informers, m.informerState(inf))
	}
	for _, c := range ctrls {
		p.Controllers = append(p.Controllers, controllerState(c))
	}
	return p
}

// The one walker of component state: informerState and controllerState read
// each component once, and both the live page (Pipeline) and /metrics
// (manager_metrics.go, each series a field of these) take their values from
// what they return, under the names package pipeline gives them.

// informerState is one informer's state now: its Reflector's health (when a
// Reflector fills it), FIFO, store and handlers.
func (m *Manager) informerState(inf managedInformer) pipeline.Informer {
	s := pipeline.Informer{Name: inf.Name(), Namespace: inf.key.Namespace, Selector: inf.key.LabelSelector, Reflector: pipeline.Reflector{State: "unknown"}}
	if inf.health != nil {
		s.Reflector = reflectorState(inf.health.Health(), m.opts.Clock)
	}
	s.FIFO = pipeline.FIFO{Depth: inf.FIFOLen(), Events: inf.Events()}
	s.Store = pipeline.Store{Objects: inf.Len(), ResourceVersion: inf.StoreResourceVersion(), Synced: inf.HasSynced()}
	for _, ix := range inf.IndexSizes() {
		s.Store.Indexes = append(s.Store.Indexes, pipeline.Index{Name: ix.Name, Values: ix.Values})
	}
	for _, h := range inf.Handlers() {
		s.Handlers = append(s.Handlers, pipeline.Handler{Name: h.Name, Backlog: h.Backlog, Busy: h.Busy, Handled: h.Handled})
	}
	return s
}

// reflectorState is a Reflector's health, as the snapshot names it.
func reflectorState(h listwatch.Health, clock Clock) pipeline.Reflector {
	r := pipeline.Reflector{State: h.State.String(), ResourceVersion: h.ResourceVersion, Relists: h.Relists, WatchRestarts: h.WatchRestarts, Received: h.Received, LastEventAge: -1}
	if h.LastError != nil {
		r.LastError = h.LastError.Error()
	}
	if !h.LastEventAt.IsZero() {
		r.LastEventAge = clock.Since(h.LastEventAt).Seconds()
	}
	return r
}

// controllerState is one controller's state now: its queue's Metrics and
// its Stats, as the snapshot names them.
func controllerState(c *Controller) pipeline.Controller {
	q, st := c.Queue().Metrics(), c.Stats()
	return pipeline.Controller{
		Name:    c.Name(),
		Queue:   pipeline.Queue{Depth: q.Depth, Processing: q.Processing, Delayed: q.Delayed, Adds: q.Adds, Retries: q.Retries},
		Workers: pipeline.Workers{Max: c.opts.Workers, Active: st.Active, Backoff: st.Backoff, Reconciles: st.Reconciles, Errors: st.Errors},
	}
}
