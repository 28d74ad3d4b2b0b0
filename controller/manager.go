package controller

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/controller/leaderelection"
	"github.com/kubewire/kubewire/controller/metrics"
	"github.com/kubewire/kubewire/fifo"
	"github.com/kubewire/kubewire/listwatch"
)

// Manager runs a process's controllers together: one client, one informer per
// (resource, namespace, selectors) shared by every controller that watches it, one
// HTTP listener for probes and metrics, and, optionally, leader election so that of
// several replicas only one reconciles.
//
//	Run ─▶ metrics server (always)
//	    ─▶ informers (always: a standby keeps its cache warm, so taking over is quick)
//	    ─▶ leader election ─▶ leading: controllers run ─▶ lost: stop, return ErrLeadershipLost
//
// Build it with NewManager, ask it for informers, Add controllers, Run. Safe for
// concurrent use before Run; Run is called once.
type Manager struct {
	client *apiclient.Client
	opts   ManagerOptions
	reg    *metrics.Registry

	mu          sync.Mutex
	informers   map[InformerKey]*informer.Informer
	order       []*informer.Informer
	controllers []*Controller
	elector     *leaderelection.Elector
}

// InformerKey is what makes two informers the same: two controllers asking for
// pods in "default" with the same selectors share one cache and one watch.
type InformerKey struct {
	Resource                     string // Resource.String(): "pods", "deployments.apps"
	Namespace                    string // "" for all namespaces
	LabelSelector, FieldSelector string
}

// ManagerOptions tune a Manager. The zero value runs without leader election and
// without an HTTP listener.
type ManagerOptions struct {
	// MetricsAddr, when set, serves /healthz, /readyz and /metrics there.
	MetricsAddr string
	// LeaderElection, when set, makes controllers run only while this replica
	// holds the Lease it names. Client is filled in from the Manager.
	LeaderElection *leaderelection.Config
	// InOrder picks the in-order FIFO for every informer (see informer.Options).
	InOrder bool
	// WatchList makes every Reflector list with a streaming list
	// (sendInitialEvents) instead of LIST.
	WatchList bool
	// OnStep, when set, is given every step of every Reflector the default Source
	// builds (the sync command counts the first list's objects with it).
	OnStep func(listwatch.Step)
	// Source builds each informer's Reflector. nil means the listwatch Reflector
	// (reflector.go); tests substitute a script.
	Source func(key InformerKey, rc apiclient.ResourceClient, sink fifo.Sink[*apiclient.Object]) informer.Runner
	// Clock times the informers' resyncs and, unless its Config has a clock of
	// its own, leader election; nil means the wall clock. Give the controllers'
	// Options and the client the same Clock (clock.go).
	Clock Clock
	Log   *slog.Logger
	// Trace receives one line per hop per object from every stage.
	Trace func(line string)
}

// NewManager builds a manager around one client.
func NewManager(c *apiclient.Client, opts ManagerOptions) (*Manager, error) {
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	if opts.Source == nil {
		opts.Source = reflectorSource(opts.Trace, opts.OnStep, opts.WatchList)
	}
	m := &Manager{client: c, opts: opts, reg: &metrics.Registry{}, informers: map[InformerKey]*informer.Informer{}}
	c.OnRequest = metrics.RESTClient(m.reg)
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
	return m, nil
}

// Registry is the metrics registry the manager serves; register your own there.
func (m *Manager) Registry() *metrics.Registry { return m.reg }

// Client is the manager's API client.
func (m *Manager) Client() *apiclient.Client { return m.client }

// Informer returns the shared informer for res in namespace ns ("" for all) with
// the given selectors, creating it on first use. Call it before Run.
func (m *Manager) Informer(res apiclient.Resource, ns string, sel apiclient.ListOptions) *informer.Informer {
	key := InformerKey{Resource: res.String(), Namespace: ns, LabelSelector: sel.LabelSelector, FieldSelector: sel.FieldSelector}
	if !res.Namespaced {
		key.Namespace = ""
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if inf, ok := m.informers[key]; ok {
		return inf
	}
	rc := m.client.Resource(res).Namespace(key.Namespace)
	var source informer.Runner
	inf := informer.New(informer.Options{
		Name:    key.Resource,
		InOrder: m.opts.InOrder,
		Trace:   m.opts.Trace,
		Clock:   m.opts.Clock,
		Source: func(sink fifo.Sink[*apiclient.Object]) informer.Runner {
			source = m.opts.Source(key, rc, sink)
			return source
		},
	})
	m.informers[key] = inf
	m.order = append(m.order, inf)
	m.informerMetrics(key, inf)
	if r, ok := source.(healthReporter); ok {
		m.reflectorMetrics(key, r)
	}
	return inf
}

// Add registers a controller; it runs while the manager leads.
func (m *Manager) Add(c *Controller) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.controllers = append(m.controllers, c)
	metrics.Workqueue(m.reg, c.Name(), c.Queue().Metrics)
	m.controllerMetrics(c)
}

// Run starts everything and blocks until ctx is done or something fails; the
// first failure stops the rest and is returned. Losing leadership is a failure
// (ErrLeadershipLost): a replica that lost the Lease may act on stale state, and
// the safe answer is to exit and be restarted.
func (m *Manager) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	goRun := func(name string, run func(context.Context) error) {
		wg.Add(1)
		go func() { // owned by Run: it waits on wg before returning
			defer wg.Done()
			if err := run(ctx); err != nil && ctx.Err() == nil {
				cancel(fmt.Errorf("%s: %w", name, err))
			}
		}()
	}
	if m.opts.MetricsAddr != "" {
		srv := &metrics.Server{Addr: m.opts.MetricsAddr, Registry: m.reg, Ready: m.ready}
		goRun("metrics server", srv.Run)
	}
	m.mu.Lock()
	informers := append([]*informer.Informer(nil), m.order...)
	controllers := append([]*Controller(nil), m.controllers...)
	m.mu.Unlock()
	for _, inf := range informers {
		goRun("informer "+inf.Name(), inf.Run)
	}
	runControllers := func(ctx context.Context) error {
		var cwg sync.WaitGroup
		errs := make(chan error, len(controllers))
		for _, c := range controllers {
			cwg.Add(1)
			go func() { // owned by runControllers, which waits on cwg
				defer cwg.Done()
				if err := c.Run(ctx); err != nil {
					errs <- err
				}
			}()
		}
		cwg.Wait()
		close(errs)
		return <-errs
	}
	if m.elector == nil {
		goRun("controllers", runControllers)
	} else {
		goRun("leader election", func(ctx context.Context) error {
			var workErr error
			err := m.elector.Run(ctx, func(lctx context.Context) { workErr = runControllers(lctx) }, nil)
			return errors.Join(err, workErr)
		})
	}
	<-ctx.Done()
	wg.Wait()
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// ready is /readyz: every informer synced, and the replica's role.
func (m *Manager) ready() (string, error) {
	m.mu.Lock()
	informers := append([]*informer.Informer(nil), m.order...)
	m.mu.Unlock()
	for _, inf := range informers {
		if !inf.HasSynced() {
			return "", fmt.Errorf("informer %s has not synced", inf.Name())
		}
	}
	switch {
	case m.elector == nil:
		return "", nil
	case m.elector.IsLeader():
		return "leader", nil
	}
	return "standby", nil
}
