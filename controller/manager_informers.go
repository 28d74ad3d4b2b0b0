package controller

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/events"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/fifo"
	"github.com/kubewire/kubewire/listwatch"
	"github.com/kubewire/kubewire/store"
)

// What the Manager hands out to the controllers it runs: informers, shared by
// every controller that asks for the same thing; Listers and indexes on them;
// events Recorders. It builds each the first time it is asked, and starts it
// at once if it is running.

// InformerKey is what makes two informers the same: two controllers asking for
// pods v1 in "default" with the same selectors share one cache and one watch.
// The version is part of it: a v1alpha1 and a v1 informer of one custom
// resource decode, cache and hand out different objects.
type InformerKey struct {
	Resource                     string // Resource.String(): "pods", "deployments.apps"
	Version                      string // "v1", "v1alpha1"
	Namespace                    string // "" for all namespaces
	LabelSelector, FieldSelector string
	MetadataOnly                 bool // a cache of PartialObjectMetadata, not whole objects
}

// Informer returns the shared informer for res in the Manager's namespace with
// the Selection opts pick, creating it on first use; one created while Run runs
// is started at once. Two callers that ask for the same get the same informer:
// one cache, one watch. It panics after Run has returned (a programmer error).
func (m *Manager) Informer(res apiclient.Resource, opts ...InformerOption) *informer.Informer {
	return m.informer(res, selection(opts))
}

// Lister returns a Lister of the Manager's informer for T's resource
// (apiclient.ResourceOf[T]) with the Selection opts pick: the cache read as
// values of T, each the caller's own (informer.Lister).
func Lister[T any](m *Manager, opts ...InformerOption) *informer.Lister[T] {
	return informer.NewLister[T](m.Informer(apiclient.ResourceOf[T](), opts...))
}

// Index adds an index named name to the informer of res that opts pick (see
// Informer), before or after Run: fn gives the values an object is filed under,
// and informer.Informer.ByIndex (or a Lister's ByIndex, or ToIndexed) finds the
// objects filed under one. An index name is given once per informer: a second
// Index of the same name is an error, never a silent second definition.
func (m *Manager) Index(res apiclient.Resource, name string, fn store.IndexFunc[*apiclient.Object], opts ...InformerOption) error {
	return m.Informer(res, opts...).AddIndexers(store.Indexers[*apiclient.Object]{name: fn})
}

// Recorder returns the events Recorder of reportingController (a qualified
// name: "kubewire.io/foo"), which the Manager runs: at once if it is running,
// else with Run. Asking twice for one name gives the same Recorder.
func (m *Manager) Recorder(reportingController string) *events.Recorder {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r, ok := m.recorders[reportingController]; ok {
		return r
	}
	if m.stopped {
		panic("controller: Manager.Recorder called after Run returned")
	}
	r := events.NewRecorder(m.client, events.Options{Controller: reportingController, Clock: m.opts.Clock, Log: m.opts.Log})
	m.recorders[reportingController] = r
	m.runners = append(m.runners, namedRunner{"events " + reportingController, r})
	if m.running != nil {
		m.running.start("events "+reportingController, r.Run)
	}
	return r
}

// informer is Informer. With sharding, every informer of a resource some
// controller reconciles (For) caches this replica's share alone, whenever it
// was asked for: what fills it is settled when the Manager runs
// (resolveSources), by which time every For is known.
func (m *Manager) informer(res apiclient.Resource, sel Selection) *informer.Informer {
	ns := m.opts.Namespace
	if !res.Namespaced {
		ns = ""
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	key := InformerKey{Resource: res.String(), Version: res.Version, Namespace: ns, LabelSelector: sel.LabelSelector,
		FieldSelector: sel.FieldSelector, MetadataOnly: sel.MetadataOnly}
	if inf, ok := m.informers[key]; ok {
		return inf
	}
	if m.stopped {
		panic("controller: Manager.Informer called after Run returned")
	}
	opts := informer.Options{Name: key.name(), Client: m.client, Resource: res, Namespace: ns,
		LabelSelector: sel.LabelSelector, FieldSelector: sel.FieldSelector, MetadataOnly: sel.MetadataOnly,
		// With sharding every informer keeps the in-order FIFO whatever was
		// asked, since which of them shard is settled only at Run: a hand-over
		// waits for the store to stand at the new ranges' list
		// (WaitForStoreVersion), which only the in-order FIFO's list bookmark marks.
		DeltaFIFO: m.opts.DeltaFIFO && m.sharder == nil, List: m.opts.List,
		Clock: m.opts.Clock, Logger: m.opts.Log, Trace: m.opts.Trace}
	var source informer.Runner
	var deferred *deferredSource
	var inf *informer.Informer
	rc, lw := opts.ResourceClient(), opts.ReflectorOptions()
	opts.Source = func(sink fifo.Sink[*apiclient.Object]) informer.Runner {
		if m.opts.Source != nil {
			source = m.opts.Source(key, rc, sink)
			return source
		}
		deferred = &deferredSource{mu: &m.mu, resolve: func() informer.Runner { return m.sourceFor(res, inf, rc, lw, sink) }}
		source = deferred
		return source
	}
	// Read-your-own-writes reads wait for the writes of the resource made
	// through the Manager's client (manager_writes.go).
	opts.OwnWrites = func(ctx context.Context) (informer.Awaited, error) { return m.writes.ownWrites(ctx, key.Resource, inf) }
	inf = informer.New(opts)
	m.informers[key] = inf
	managed := managedInformer{Informer: inf, key: key, res: res, holds: newHolds(key), deferred: deferred}
	if r, ok := source.(healthReporter); ok {
		managed.health = r
	}
	m.informerMetrics(managed)
	m.order = append(m.order, managed)
	if m.running != nil {
		managed.resolve()
		m.running.start("informer "+inf.Name(), inf.Run)
	}
	return inf
}

// sourceFor is what fills inf, an informer of res, settled when the Manager
// runs (or when inf is asked for while it runs): with sharding, if some
// controller reconciles res (For), this replica's share, through the
// Sharder; else a Reflector of everything. Called with m.mu held.
func (m *Manager) sourceFor(res apiclient.Resource, inf *informer.Informer, rc apiclient.ResourceClient, lw listwatch.Options, sink fifo.Sink[*apiclient.Object]) informer.Runner {
	if m.sharder == nil || !m.shardedRes[res.String()+"/"+res.Version] {
		return m.reflector(rc, lw, sink)
	}
	src := m.sharder.Source(inf, rc, lw, sink, func(lw listwatch.Options, sink fifo.Sink[*apiclient.Object]) informer.Runner {
		return m.reflector(rc, lw, sink)
	})
	m.sharded[inf] = true
	return src
}

// deferredSource is an informer's source before the Manager runs: which one
// it is (sourceFor) depends on every For, so it is settled at Run, before
// the informer starts — or when the informer runs, if it runs without the
// Manager (the sync command runs one alone). Its Health is the settled
// source's.
type deferredSource struct {
	mu      *sync.Mutex            // the Manager's: resolve reads what it guards
	resolve func() informer.Runner // nil once settled; guarded by mu
	source  atomic.Pointer[informer.Runner]
}

// Run runs the settled source, settling it first if the Manager has not.
func (d *deferredSource) Run(ctx context.Context) error {
	src := d.source.Load()
	if src == nil {
		d.mu.Lock()
		d.settle()
		d.mu.Unlock()
		src = d.source.Load()
	}
	return (*src).Run(ctx)
}

// settle resolves the source, once; called with mu held.
func (d *deferredSource) settle() {
	if d.resolve != nil {
		src := d.resolve()
		d.resolve = nil
		d.source.Store(&src)
	}
}

// Health is the settled source's, zero before it is settled.
func (d *deferredSource) Health() listwatch.Health {
	if src := d.source.Load(); src != nil {
		if h, ok := (*src).(healthReporter); ok {
			return h.Health()
		}
	}
	return listwatch.Health{}
}

// resolve settles the informer's source, once; called with m.mu held.
func (mi managedInformer) resolve() {
	if mi.deferred != nil {
		mi.deferred.settle()
	}
}

// managedInformer is an informer the Manager runs, with the key it was asked
// for under and its source's health: the Reflector's, read through the
// deferred source once Run settles it (nil when ManagerOptions.Source fills
// the informer with something that reports none).
type managedInformer struct {
	*informer.Informer
	key    InformerKey
	res    apiclient.Resource // what it lists and watches (Permissions)
	health healthReporter
	holds  holds // which written objects it would hold (manager_writes.go)
	// deferred is the source the Manager settles at Run (nil for a source of
	// ManagerOptions.Source).
	deferred *deferredSource
}
