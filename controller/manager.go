package controller

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/events"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/controller/leaderelection"
	"github.com/kubewire/kubewire/controller/metrics"
	"github.com/kubewire/kubewire/controller/rbac"
	"github.com/kubewire/kubewire/controller/sharding"
	"github.com/kubewire/kubewire/controller/trace"
	"github.com/kubewire/kubewire/fifo"
	"github.com/kubewire/kubewire/listwatch"
)

// Manager runs a process's controllers together: one client, one informer per
// (resource, version, namespace, selectors) shared by every controller that
// watches it (manager_informers.go), one HTTP listener for probes and metrics,
// and, with several replicas, either leader election, so that one of them
// reconciles, or sharding, so that each reconciles its share.
//
//	Run ─▶ metrics server: /healthz, /readyz (manager_ready.go), /metrics (manager_metrics.go)
//	    ─▶ informers, Recorders, runners: always, on every replica (a standby's
//	       cache stays warm, so taking over is quick)
//	    ─▶ then one of three:
//	       alone            controllers run
//	       leader election  while leading, controllers run; leadership lost: stop,
//	                        return leaderelection.ErrLeadershipLost (lead, below)
//	       sharding         the Sharder claims this replica's ranges; controllers
//	                        run, each Request gated by them (manager_sharding.go)
//
// Build it with NewManager, describe controllers on it (New(m, …)…Complete),
// Run. Everything a controller needs from the process comes from here: the
// client, the informers and listers (Informer, Lister, Index), an events
// Recorder it runs itself, the logger, the trace and the clock. An informer
// asked for or a controller completed while Run runs is started at once (a
// controller only while this replica leads), as client-go's informer factory and
// controller-runtime's manager start what is added late; after Run has returned,
// asking for an informer is a programmer error and panics, and Complete fails.
// Safe for concurrent use; Run is called once.
type Manager struct {
	client *apiclient.Client
	opts   ManagerOptions
	reg    *metrics.Registry

	mu          sync.Mutex
	informers   map[InformerKey]*informer.Informer
	order       []managedInformer           // the informers in the order they were added
	sharded     map[*informer.Informer]bool // the sharded ones (manager_sharding.go)
	shardedRes  map[string]bool             // resource/version of each For, with sharding
	recorders   map[string]*events.Recorder // by reportingController
	runners     []namedRunner
	readyChecks []namedCheck // AddReadyCheck's, in the order added
	controllers []*Controller
	names       map[string]bool // the controllers' names, taken by Complete before it builds anything
	elector     *leaderelection.Elector
	sharder     shardRing // this replica's member of the shard ring (manager_sharding.go), nil without sharding
	// running is Run's group while Run runs: informers added late start in it.
	// leading is the group the controllers run in, while they run: Run's own
	// without leader election, one per term with it. Both are nil before Run and
	// once it is stopping (stopped is then true).
	running, leading *group
	stopped          bool

	writes writes // the client's writes, for the guard and read-your-own-writes (manager_writes.go)
	// abandoned counts the writes given up on (Manager.gaveUp), by the
	// controller whose reconcile made them and their resource.
	abandoned *metrics.CounterVec
	// used notes what each request of the client needed of RBAC
	// (Permissions, manager_rbac.go).
	used rbac.Recorder
}

// ManagerOptions tune a Manager and, through it, everything it runs. The zero
// value runs without leader election and without an HTTP listener, watches every
// namespace, and logs and keeps time as its client does (slog.Default() and the
// wall clock, unless the client was given others).
type ManagerOptions struct {
	// Namespace is where every informer of a namespaced resource lists and
	// watches; "" means all namespaces (controller-runtime's
	// cache.Options.DefaultNamespaces). Cluster-scoped resources ignore it.
	Namespace string
	// MetricsAddr, when set, serves /healthz, /readyz and /metrics there
	// (metrics.Server: ":8080" is loopback; there a foreign Host is refused).
	MetricsAddr string
	// ReadyDetail makes /readyz say why the process is not ready, and the
	// role it plays, when MetricsAddr is beyond loopback too
	// (metrics.Server.ReadyDetail). It names namespaces, selectors, shard
	// ranges and other replicas' identities, and a server beyond loopback
	// answers any Host (a scrape comes by a Service's name): off, /readyz
	// there says ok or not ready, and no more. On loopback it always says it.
	ReadyDetail bool
	// LeaderElection, when set, makes controllers run only while this replica
	// holds the Lease it names. Client is the Manager's; so are Clock and
	// Logger, unless set.
	LeaderElection *leaderelection.Config
	// Sharding, when set, spreads the work over every replica instead: each
	// caches and reconciles its share of each controller's For resource
	// (manager_sharding.go, package sharding). Client is the Manager's; so are
	// Clock and Logger, unless set. The two exclude each other.
	Sharding *sharding.Config
	// DeltaFIFO picks the classic DeltaFIFO for every informer, over the default
	// in-order FIFO (see informer.Options).
	DeltaFIFO bool
	// List is how every Reflector of the Manager lists (informer.Options.List);
	// the zero value lists the cheapest way for the server.
	List listwatch.ListMethod
	// OnStep, when set, is given every step of every Reflector the default Source
	// builds (the sync command counts the first list's objects with it).
	OnStep func(listwatch.Step)
	// Source builds each informer's Reflector. nil means the listwatch Reflector
	// (reflector.go); tests substitute a script.
	Source func(key InformerKey, rc apiclient.ResourceClient, sink fifo.Sink[*apiclient.Object]) informer.Runner
	// Clock times everything the Manager runs: the workqueues' delays and
	// metrics, resyncs, the Reflectors' backoffs and watch timeouts, leader
	// election, sharding, events, and the Manager's client's rate limiting and
	// Retry-After waits; nil means the client's clock (apiclient.Options.Clock,
	// the wall clock by default).
	Clock Clock
	// Log receives what the Manager and everything it runs log, its client's
	// lines (Retry-After waits, server warnings) included; nil means the
	// client's logger (apiclient.Options.Log, slog.Default() by default).
	Log *slog.Logger
	// Trace receives one Event per hop per object from every stage —
	// Reflector, FIFO, store, handlers, workqueue, reconcile — and two per write
	// the client makes, sent and answered (package trace, manager_trace.go).
	// It is called on the stage's own goroutine: it must be quick, and safe for
	// concurrent use.
	Trace func(trace.Event)
}

// NewManager builds a manager around one client, and adopts it
// (apiclient.Client.Adopt): from then on c waits on the Manager's Clock, logs
// to its Log, and its requests — made by the Manager, or by anyone holding c
// — are told, after c's own Observer (the command's -v 6 log), to the
// Manager's: it counts them for /metrics, notes what each needed of RBAC
// (Permissions), follows the writes for the controllers' staleness guard and
// read-your-own-writes reads (manager_writes.go), and traces them (Trace).
// Client returns c itself. The clock and the logger are given once: left
// unset in the options, they are c's (Options.Clock, Options.Log); set, c
// takes them too. A client has one owner: NewManager fails on a client
// another Manager has adopted (give each Manager a client of its own).
func NewManager(c *apiclient.Client, opts ManagerOptions) (*Manager, error) {
	// The clock and the logger are given once: what the options leave unset is
	// the client's, and what they set, the client takes.
	own := apiclient.Derived{Clock: opts.Clock, Log: opts.Log}
	if opts.Log == nil {
		opts.Log = c.Log()
	}
	if opts.Clock == nil {
		opts.Clock = c.Clock()
	}
	m := &Manager{opts: opts, reg: &metrics.Registry{}, informers: map[InformerKey]*informer.Informer{},
		sharded: map[*informer.Informer]bool{}, shardedRes: map[string]bool{}, recorders: map[string]*events.Recorder{}}
	own.Observer = apiclient.Observer{
		Answered: metrics.RESTClient(m.reg),
		Write:    m.onWrite,
	}.Then(apiclient.Observer{Answered: func(_ context.Context, r apiclient.RequestInfo) { m.used.Observe(r) }})
	if opts.Trace != nil {
		own.Observer = own.Observer.Then(traceWrites(opts.Trace))
	}
	if err := c.Adopt("a controller.Manager", own); err != nil {
		return nil, fmt.Errorf("manager: %w", err)
	}
	m.client = c
	m.writes.clock, m.writes.report = opts.Clock, m.gaveUp
	m.ownWritesMetrics()
	if opts.LeaderElection != nil {
		cfg := *opts.LeaderElection
		cfg.Member = cfg.Member.Inherit(c, opts.Clock, opts.Log)
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

// Client is the manager's API client: the one NewManager was given, which
// it adopted.
func (m *Manager) Client() *apiclient.Client { return m.client }

// Clock is the manager's clock (ManagerOptions.Clock): the one a Reconciler
// reads the time from, for a condition's lastTransitionTime, say.
func (m *Manager) Clock() Clock { return m.opts.Clock }

// Log is the manager's logger (ManagerOptions.Log).
func (m *Manager) Log() *slog.Logger { return m.opts.Log }

// clock is the Clock, for the controllers the Manager builds.
func (m *Manager) clock() Clock { return m.opts.Clock }

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

// namedCheck is something AddReadyCheck was given.
type namedCheck struct {
	name  string
	check func() error
}

// AddReadyCheck makes /readyz (Ready) depend on check too: the replica is not
// ready while it returns an error, which Ready names as "name: error". It is
// for what runs beside the controllers and must be up before the replica
// takes traffic — a webhook server (controller/webhook) with its certificate
// loaded and its configurations applied. check is called on every probe, from
// the probe's goroutine: it must be quick and safe for concurrent use.
func (m *Manager) AddReadyCheck(name string, check func() error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.readyChecks = append(m.readyChecks, namedCheck{name, check})
}

// claim takes name for a controller Complete is about to build, or says why
// it cannot: the Manager has stopped, or another controller has the name (it
// labels the metrics and the logs, so two would mix). Nothing is built or
// registered before the claim, so a refused Complete leaves the Manager as it
// was; release gives the name back when the build fails after it.
func (m *Manager) claim(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case m.stopped:
		return errors.New("the Manager has stopped: nothing would run it")
	case m.names[name]:
		return fmt.Errorf("a controller named %q was added to this Manager already: names label its metrics and logs, give each its own", name)
	}
	if m.names == nil {
		m.names = map[string]bool{}
	}
	m.names[name] = true
	return nil
}

func (m *Manager) release(name string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.names, name)
}

// add registers a controller Complete built; it runs while the manager leads
// (always, without leader election). One added while it leads starts at once.
func (m *Manager) add(c *Controller) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stopped {
		return errors.New("the Manager has stopped")
	}
	m.controllers = append(m.controllers, c)
	c.caches = m.caches
	c.admit = m.admitter(c) // the sharding gate, the staleness guard (admit.go)
	metrics.Workqueue(m.reg, c.Name(), c.Queue().Metrics)
	m.controllerMetrics(c)
	if m.leading != nil {
		m.leading.start("controllers", c.Run)
	}
	return nil
}

// caches is every informer the Manager holds now: what a controller waits for
// before its first Reconcile (Controller.waitForCaches).
func (m *Manager) caches() []*informer.Informer {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*informer.Informer, 0, len(m.order))
	for _, inf := range m.order {
		out = append(out, inf.Informer)
	}
	return out
}

// Run starts everything and blocks until ctx is done or something fails; the
// first failure stops the rest and is returned. ctx ending, however it ends, is
// a clean stop: Run returns nil. Losing leadership is a failure (an error
// wrapping leaderelection.ErrLeadershipLost): a replica that lost the Lease may
// act on stale state, and the safe answer is to exit and be restarted.
func (m *Manager) Run(ctx context.Context) error {
	g := newGroup(ctx)
	m.mu.Lock()
	if m.running != nil || m.stopped {
		m.mu.Unlock()
		return errors.New("controller: Manager.Run called twice")
	}
	m.running = g
	if m.opts.MetricsAddr != "" {
		srv := &metrics.Server{Addr: m.opts.MetricsAddr, Registry: m.reg, Ready: m.Ready, ReadyDetail: m.opts.ReadyDetail}
		g.start("metrics server", srv.Run)
	}
	for _, inf := range m.order {
		inf.resolve() // every For is known by now: which informers shard is settled
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
