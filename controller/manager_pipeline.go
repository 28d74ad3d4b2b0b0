package controller

import (
	"slices"

	"github.com/kubewire/kubewire/controller/pipeline"
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
		s := pipeline.Informer{Name: inf.Name(), Namespace: inf.key.Namespace, Selector: inf.key.LabelSelector, Reflector: pipeline.Reflector{State: "unknown"}}
		if inf.health != nil {
			h := inf.health.Health()
			s.Reflector = pipeline.Reflector{State: h.State.String(), ResourceVersion: h.ResourceVersion, Relists: h.Relists, WatchRestarts: h.WatchRestarts, Events: h.Received}
			if h.LastError != nil {
				s.Reflector.LastError = h.LastError.Error()
			}
		}
		var popped uint64
		for _, n := range inf.Events() {
			popped += n
		}
		s.FIFO = pipeline.FIFO{Depth: inf.FIFOLen(), Popped: popped}
		s.Store = pipeline.Store{Objects: inf.Len(), ResourceVersion: inf.StoreResourceVersion()}
		for _, ix := range inf.IndexSizes() {
			s.Store.Indexes = append(s.Store.Indexes, pipeline.Index{Name: ix.Name, Values: ix.Values})
		}
		for _, h := range inf.Handlers() {
			s.Handlers = append(s.Handlers, pipeline.Handler{Name: h.Name, Backlog: h.Backlog, Busy: h.Busy, Handled: h.Handled})
		}
		p.Informers = append(p.Informers, s)
	}
	for _, c := range ctrls {
		q, st := c.Queue().Metrics(), c.Stats()
		p.Controllers = append(p.Controllers, pipeline.Controller{
			Name:    c.Name(),
			Queue:   pipeline.Queue{Depth: q.Depth, InFlight: q.Processing, RetriesWaiting: q.Delayed, Adds: q.Adds, Retries: q.Retries},
			Workers: pipeline.Workers{Max: c.opts.Workers, Busy: st.Active, Reconciles: st.Reconciles, Errors: st.Errors},
		})
	}
	return p
}
