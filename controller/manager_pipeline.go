package controller

import "slices"

// Pipeline is every stage of a Manager at one moment, stage by stage as the data
// flows: what the live page (controller/live) draws. Each value is read from the
// component itself, as /metrics reads it; nothing is counted twice. A plain
// value, with JSON names for the page.
type Pipeline struct {
	Leader      LeaderState       `json:"leader"`
	Informers   []InformerState   `json:"informers"`
	Controllers []ControllerState `json:"controllers"`
}

// LeaderState: Elected says whether leader election is on; Leading whether this
// replica's controllers run (always, without election).
type LeaderState struct {
	Elected bool `json:"elected"`
	Leading bool `json:"leading"`
}

// InformerState is one informer: its Reflector, FIFO, store and handlers.
type InformerState struct {
	Name      string         `json:"name"`
	Namespace string         `json:"namespace"`
	Selector  string         `json:"selector"`
	Reflector ReflectorState `json:"reflector"`
	FIFO      FIFOState      `json:"fifo"`
	Store     StoreState     `json:"store"`
	Handlers  []HandlerState `json:"handlers"`
}

// ReflectorState is listwatch.Health, as the page shows it. Events counts the
// objects received (listed, and watch events); an informer the Manager did not
// build (AddInformer) has only its State, "unknown".
type ReflectorState struct {
	State           string `json:"state"`
	ResourceVersion string `json:"resourceVersion"`
	LastError       string `json:"lastError"`
	Relists         int    `json:"relists"`
	WatchRestarts   int    `json:"watchRestarts"`
	Events          uint64 `json:"events"`
}

// FIFOState: what waits in the FIFO, and how many deltas have been popped.
type FIFOState struct {
	Depth  int    `json:"depth"`
	Popped uint64 `json:"popped"`
}

// StoreState: the objects cached, the resourceVersion the cache has caught up
// to, and its indexes.
type StoreState struct {
	Objects         int          `json:"objects"`
	ResourceVersion string       `json:"resourceVersion"`
	Indexes         []IndexState `json:"indexes"`
}

// IndexState is one index of a store: how many values objects are filed under
// (the namespace index of a cache that spans 3 namespaces has 3).
type IndexState struct {
	Name   string `json:"name"`
	Values int    `json:"values"`
}

// HandlerState is one handler: notifications waiting, whether it is handling
// one now, and how many it has handled.
type HandlerState struct {
	Name    string `json:"name"`
	Backlog int    `json:"backlog"`
	Busy    bool   `json:"busy"`
	Handled uint64 `json:"handled"`
}

// ControllerState is one controller: its workqueue and its workers.
type ControllerState struct {
	Name    string       `json:"name"`
	Queue   QueueState   `json:"queue"`
	Workers WorkersState `json:"workers"`
}

// QueueState: keys waiting (Depth), handed to a worker (InFlight), held back by
// AddAfter or the rate limiter (RetriesWaiting); Adds and Retries since start.
type QueueState struct {
	Depth          int    `json:"depth"`
	InFlight       int    `json:"inFlight"`
	RetriesWaiting int    `json:"retriesWaiting"`
	Adds           uint64 `json:"adds"`
	Retries        uint64 `json:"retries"`
}

// WorkersState: how many may run (Max), run now (Busy), and have run.
type WorkersState struct {
	Max        int    `json:"max"`
	Busy       int64  `json:"busy"`
	Reconciles uint64 `json:"reconciles"`
	Errors     uint64 `json:"errors"`
}

// Pipeline returns every stage's state now. It costs a few locks per informer,
// handler and controller: call it a few times a second, not per event.
func (m *Manager) Pipeline() Pipeline {
	// Under the Manager's lock, only which components there are; their own state
	// is read after, under their own locks.
	m.mu.Lock()
	infs, ctrls, elector := slices.Clone(m.order), m.controllers, m.elector
	m.mu.Unlock()

	p := Pipeline{Leader: LeaderState{Elected: elector != nil, Leading: elector == nil || elector.IsLeader()}}
	for _, inf := range infs {
		s := InformerState{Name: inf.Name(), Namespace: inf.key.Namespace, Selector: inf.key.LabelSelector, Reflector: ReflectorState{State: "unknown"}}
		if inf.health != nil {
			h := inf.health.Health()
			s.Reflector = ReflectorState{State: h.State.String(), ResourceVersion: h.ResourceVersion, Relists: h.Relists, WatchRestarts: h.WatchRestarts, Events: h.Received}
			if h.LastError != nil {
				s.Reflector.LastError = h.LastError.Error()
			}
		}
		var popped uint64
		for _, n := range inf.Events() {
			popped += n
		}
		s.FIFO = FIFOState{Depth: inf.FIFOLen(), Popped: popped}
		s.Store = StoreState{Objects: inf.Len(), ResourceVersion: inf.StoreResourceVersion()}
		for _, ix := range inf.IndexSizes() {
			s.Store.Indexes = append(s.Store.Indexes, IndexState{Name: ix.Name, Values: ix.Values})
		}
		for _, h := range inf.Handlers() {
			s.Handlers = append(s.Handlers, HandlerState{Name: h.Name, Backlog: h.Backlog, Busy: h.Busy, Handled: h.Handled})
		}
		p.Informers = append(p.Informers, s)
	}
	for _, c := range ctrls {
		q, st := c.Queue().Metrics(), c.Stats()
		p.Controllers = append(p.Controllers, ControllerState{
			Name:    c.Name(),
			Queue:   QueueState{Depth: q.Depth, InFlight: q.Processing, RetriesWaiting: q.Delayed, Adds: q.Adds, Retries: q.Retries},
			Workers: WorkersState{Max: c.opts.Workers, Busy: st.Active, Reconciles: st.Reconciles, Errors: st.Errors},
		})
	}
	return p
}
