package controller

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/controller/leaderelection"
	"github.com/kubewire/kubewire/controller/metrics"
	"github.com/kubewire/kubewire/controller/sharding"
	"github.com/kubewire/kubewire/fifo"
	"github.com/kubewire/kubewire/listwatch"
)

// Manager runs a process's controllers together: one client, one informer per
// (resource, version, namespace, selectors) shared by every controller that
// watches it, one HTTP listener for probes and metrics, and, optionally, leader
// election so that of several replicas only one reconciles.
//
//	Run ─▶ metrics server (always)
//	    ─▶ informers (always: a standby keeps its cache warm, so taking over is quick)
//	    ─▶ leader election ─▶ leading: controllers run ─▶ lost: stop, return ErrLeadershipLost
//
// Build it with NewManager, ask it for informers, Add controllers, Run. An
// informer asked for or a controller added while Run runs is started at once (a
// controller only while this replica leads), as client-go's informer factory and
// controller-runtime's manager start what is added late; after Run has returned,
// either is a programmer error and panics. Safe for concurrent use; Run is called
// once.
type Manager struct {
	client *apiclient.Client
	opts   ManagerOptions
	reg    *metrics.Registry

	mu          sync.Mutex
	informers   map[InformerKey]*informer.Informer
	order       []managedInformer           // the informers in the order they were added
	sharded     map[*informer.Informer]bool // those asked for with Sharded (manager_sharding.go)
	runners     []namedRunner
	controllers []*Controller
	elector     *leaderelection.Elector
	sharder     *sharding.Sharder
	// running is Run's group while Run runs: informers added late start in it.
	// leading is the group the controllers run in, while they run: Run's own
	// without leader election, one per term with it. Both are nil before Run and
	// once it is stopping (stopped is then true).
	running, leading *group
	stopped          bool
}

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
	Sharded                      bool // this replica's share only (informer.Options.Sharded)
}

// ManagerOptions tune a Manager. The zero value runs without leader election and
// without an HTTP listener.
type ManagerOptions struct {
	// MetricsAddr, when set, serves /healthz, /readyz and /metrics there.
	MetricsAddr string
	// LeaderElection, when set, makes controllers run only while this replica
	// holds the Lease it names. Client is filled in from the Manager.
	LeaderElection *leaderelection.Config
	// Sharding, when set, spreads the work over every replica instead: each
	// caches and reconciles its share of each informer asked for with
	// informer.Options.Sharded (manager_sharding.go, package sharding). Client,
	// Clock and Logger are filled in as for LeaderElection; the two exclude
	// each other.
	Sharding *sharding.Config
	// DeltaFIFO picks the classic DeltaFIFO for every informer, over the default
	// in-order FIFO (see informer.Options).
	DeltaFIFO bool
	// List is how every Reflector lists, unless its informer.Options say
	// otherwise (see informer.Options.List); the zero value lists the cheapest
	// way for the server.
	List listwatch.ListMethod
	// OnStep, when set, is given every step of every Reflector the default Source
	// builds (the sync command counts the first list's objects with it).
	OnStep func(listwatch.Step)
	// Source builds each informer's Reflector. nil means the listwatch Reflector
	// the informer would build itself (informer.Options.ReflectorOptions), with
	// OnStep (reflector.go); tests substitute a script.
	Source func(key InformerKey, rc apiclient.ResourceClient, sink fifo.Sink[*apiclient.Object]) informer.Runner
	// Clock times the informers' resyncs, their Reflectors' backoffs and watch
	// timeouts and, unless its Config has a clock of its own, leader election;
	// nil means the wall clock. Give the controllers'
	// Options and the client the same Clock (clock.go).
	Clock Clock
	// Log receives what the Manager, its Reflectors and its leader election log
	// (unless its Config has a Logger of its own); nil means slog.Default().
	Log *slog.Logger
	// Trace receives one line per hop per object from every stage, and one per
	// write the client makes (manager_trace.go).
	Trace func(line string)
}

// NewManager builds a manager around one client. It counts the client's
// requests for /metrics through OnRequest, after the hook the client already has
// (the command's -v 6 log), which keeps being called. Setting OnRequest is only
// safe before the client's first request: give each Manager a client of its own,
// built for it, not one another Manager already uses.
func NewManager(c *apiclient.Client, opts ManagerOptions) (*Manager, error) {
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	m := &Manager{client: c, opts: opts, reg: &metrics.Registry{}, informers: map[InformerKey]*informer.Informer{}, sharded: map[*informer.Informer]bool{}}
	c.OnRequest = chain(c.OnRequest, metrics.RESTClient(m.reg))
	if opts.Trace != nil {
		c.OnRequest = chain(c.OnRequest, traceWrites(opts.Trace))
	}
	if opts.LeaderElection != nil {
		cfg := *opts.LeaderElection
		cfg.Client = c
		if cfg.Clock == nil && opts.Clock != nil {
			cfg.Clock = opts.Clock
		}
		if cfg.Logger == nil {
			cfg.Logger = opts.Log
		}
		e, err := leaderelection.New(cfg)
		if err != nil {
			return nil, fmt.Errorf("manager: %w", err)
		}
		m.elector = e
		metrics.LeaderElection(m.reg, cfg.Name, e.IsLeader)
	}
	if opts.Sharding != nil {
		if opts.LeaderElection != nil {
			return nil, errors.New("manager: Sharding and LeaderElection exclude each other: with sharding every replica works")
		}
		if err := m.shard(*opts.Sharding); err != nil {
			return nil, fmt.Errorf("manager: %w", err)
		}
	}
	return m, nil
}

// Registry is the metrics registry the manager serves; register your own there.
func (m *Manager) Registry() *metrics.Registry { return m.reg }

// Client is the manager's API client.
func (m *Manager) Client() *apiclient.Client { return m.client }

// Informer returns the shared informer for res with opts' namespace ("" for
// all) and selectors, creating it on first use; one created while Run runs is
// started at once. opts are informer.Options, those of a hand-built informer:
// the first call for a (resource, version, namespace, selectors) builds the
// informer with its Transform, Indexers, ResyncPeriod and DeltaFIFO (or the
// Manager's DeltaFIFO), and later calls share that informer as it was built. Name,
// Trace and Clock default to the resource's name and the Manager's; Source to the
// Manager's (its Reflector, with its logger).
func (m *Manager) Informer(res apiclient.Resource, opts informer.Options) *informer.Informer {
	if !res.Namespaced {
		opts.Namespace = ""
	}
	opts.Sharded = opts.Sharded && m.sharder != nil
	key := InformerKey{Resource: res.String(), Version: res.Version, Namespace: opts.Namespace, LabelSelector: opts.LabelSelector, FieldSelector: opts.FieldSelector, MetadataOnly: opts.MetadataOnly, Sharded: opts.Sharded}
	m.mu.Lock()
	defer m.mu.Unlock()
	if inf, ok := m.informers[key]; ok {
		return inf
	}
	if m.stopped {
		panic("controller: Manager.Informer called after Run returned")
	}
	opts.Name = cmp.Or(opts.Name, key.Resource)
	// A sharded informer keeps the in-order FIFO whatever was asked: a
	// hand-over waits for the store to stand at the new ranges' list
	// (WaitForStoreVersion), which only the in-order FIFO's list bookmark marks.
	opts.DeltaFIFO = (opts.DeltaFIFO || m.opts.DeltaFIFO) && !opts.Sharded
	if opts.List == listwatch.ListCheapest {
		opts.List = m.opts.List
	}
	if opts.Trace == nil {
		opts.Trace = m.opts.Trace
	}
	if opts.Clock == nil && m.opts.Clock != nil {
		opts.Clock = m.opts.Clock
	}
	var source informer.Runner
	var shardSource *sharding.Source
	if opts.Source == nil {
		opts.Client, opts.Resource, opts.Logger = m.client, res, cmp.Or(opts.Logger, m.opts.Log)
		rc, lw := opts.ResourceClient(), opts.ReflectorOptions()
		opts.Source = func(sink fifo.Sink[*apiclient.Object]) informer.Runner {
			switch {
			case m.opts.Source != nil:
				source = m.opts.Source(key, rc, sink)
			case opts.Sharded:
				shardSource = m.sharder.Source(rc, lw, sink, func(lw listwatch.Options, sink fifo.Sink[*apiclient.Object]) informer.Runner {
					return m.reflector(rc, lw, sink)
				})
				source = shardSource
			default:
				source = m.reflector(rc, lw, sink)
			}
			return source
		}
	}
	inf := informer.New(opts)
	if shardSource != nil {
		shardSource.Attach(inf)
	}
	m.informers[key] = inf
	if key.Sharded {
		m.sharded[inf] = true
	}
	managed := managedInformer{Informer: inf, key: key}
	m.informerMetrics(key, inf)
	if r, ok := source.(healthReporter); ok {
		m.reflectorMetrics(key, r)
		managed.health = r
	}
	m.order = append(m.order, managed)
	if m.running != nil {
		m.running.start("informer "+inf.Name(), inf.Run)
	}
	return inf
}

// AddInformer adopts an informer built by hand with informer.New (a Source of
// its own, a transform, indexers): the Manager runs it, shows it on /metrics
// under its Name (version, namespace and selector empty, the Reflector's
// families absent: the Manager does not know its Source) and waits for it on
// /readyz, as it does for the informers it builds. One adopted while Run runs
// starts at once. Do not Run it yourself. It is an error to adopt an informer
// twice, or two with one Name (their metrics would be one series).
func (m *Manager) AddInformer(inf *informer.Informer) error {
	key := InformerKey{Resource: inf.Name()}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stopped {
		panic("controller: Manager.AddInformer called after Run returned")
	}
	if _, dup := m.informers[key]; dup {
		return fmt.Errorf("controller: Manager.AddInformer: an informer named %q was already added", key.Resource)
	}
	m.informers[key] = inf
	m.order = append(m.order, managedInformer{Informer: inf, key: key})
	m.informerMetrics(key, inf)
	if m.running != nil {
		m.running.start("informer "+inf.Name(), inf.Run)
	}
	return nil
}

// managedInformer is an informer the Manager runs, with the key it was asked
// for under and, for one the Manager built, its Reflector's health (nil for one
// adopted with AddInformer).
type managedInformer struct {
	*informer.Informer
	key    InformerKey
	health healthReporter
}

// namedRunner is something AddRunner was given.
type namedRunner struct {
	name string
	r    informer.Runner
}

// AddRunner runs r for as long as Run runs, on every replica whether it leads or
// not, as the informers run: an events.Recorder, a cache warmer, a server of
// your own. Run starts it with the informers (at once if Run is running) and
// waits for it to return after ctx ends; an error it returns stops the Manager,
// as an informer's would.
func (m *Manager) AddRunner(name string, r informer.Runner) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stopped {
		panic("controller: Manager.AddRunner called after Run returned")
	}
	m.runners = append(m.runners, namedRunner{name, r})
	if m.running != nil {
		m.running.start(name, r.Run)
	}
}

// Add registers a controller; it runs while the manager leads (always, without
// leader election). One added while it leads starts at once.
func (m *Manager) Add(c *Controller) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stopped {
		panic("controller: Manager.Add called after Run returned")
	}
	m.controllers = append(m.controllers, c)
	if m.sharder != nil {
		c.admit = m.admit(c)
	}
	metrics.Workqueue(m.reg, c.Name(), c.Queue().Metrics)
	m.controllerMetrics(c)
	if m.leading != nil {
		m.leading.start("controllers", c.Run)
	}
}

// Run starts everything and blocks until ctx is done or something fails; the
// first failure stops the rest and is returned. ctx ending, however it ends, is
// a clean stop: Run returns nil. Losing leadership is a failure
// (ErrLeadershipLost): a replica that lost the Lease may act on stale state, and
// the safe answer is to exit and be restarted.
func (m *Manager) Run(ctx context.Context) error {
	g := newGroup(ctx)
	m.mu.Lock()
	if m.running != nil || m.stopped {
		m.mu.Unlock()
		return errors.New("controller: Manager.Run called twice")
	}
	m.running = g
	if m.opts.MetricsAddr != "" {
		srv := &metrics.Server{Addr: m.opts.MetricsAddr, Registry: m.reg, Ready: m.Ready}
		g.start("metrics server", srv.Run)
	}
	for _, inf := range m.order {
		g.start("informer "+inf.Name(), inf.Run)
	}
	for _, nr := range m.runners {
		g.start(nr.name, nr.r.Run)
	}
	if m.sharder != nil {
		g.start("sharding", m.sharder.Run)
	}
	if m.elector == nil {
		m.startControllers(g)
	} else {
		g.start("leader election", m.lead)
	}
	m.mu.Unlock()

	<-g.ctx.Done()
	// Forget the groups before waiting on them, so nothing is started in a group
	// being waited on.
	m.mu.Lock()
	m.running, m.leading, m.stopped = nil, nil, true
	m.mu.Unlock()
	return g.wait()
}

// startControllers starts every controller in g and makes g where controllers
// added later start; called with mu held.
func (m *Manager) startControllers(g *group) {
	m.leading = g
	for _, c := range m.controllers {
		g.start("controllers", c.Run)
	}
}

// lead runs leader election: each term of leadership runs the controllers in a
// group of its own, which ends with the term.
func (m *Manager) lead(ctx context.Context) error {
	var workErr error
	err := m.elector.Run(ctx, func(lctx context.Context) {
		term := newGroup(lctx)
		m.mu.Lock()
		if !m.stopped {
			m.startControllers(term)
		}
		m.mu.Unlock()
		<-term.ctx.Done()
		m.mu.Lock()
		if m.leading == term {
			m.leading = nil
		}
		m.mu.Unlock()
		workErr = term.wait()
	}, nil)
	return errors.Join(err, workErr)
}

// chain returns a hook that calls first, then second; either may be nil.
func chain(first, second func(apiclient.RequestInfo)) func(apiclient.RequestInfo) {
	if first == nil {
		return second
	}
	return func(r apiclient.RequestInfo) {
		first(r)
		second(r)
	}
}
