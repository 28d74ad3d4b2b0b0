package perturb

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/kubeconfig"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/controller/trace"
	"github.com/kubewire/kubewire/fifo"
	"github.com/kubewire/kubewire/listwatch"
)

// process is one run of the user's program: a Manager built by Spec.Setup on
// a client of its own. A crash ends it; the next is a fresh one.
type process struct {
	n    int
	net  *network
	lag  *lag // the stale view it starts with, if any
	dead bool // guarded by net.mu

	cancel   context.CancelFunc
	done     chan struct{} // closed when Run has returned
	stopped  chan struct{} // closed when it is killed or stopped: held workers go
	stopOnce sync.Once
}

// stop lets every worker the gate holds go: the process is ending.
func (p *process) stop() { p.stopOnce.Do(func() { close(p.stopped) }) }

// config is the kubeconfig every client is built from: the transport ignores
// the address.
var config = &kubeconfig.Config{Server: "https://perturb.invalid", Namespace: "default", Source: "perturb"}

// start builds and runs a process; l, when set, is its stale view.
func (x *execution) start(l *lag) error {
	p := &process{n: len(x.procs) + 1, net: x.net, lag: l, done: make(chan struct{}), stopped: make(chan struct{})}
	log := x.spec.Manager.Log
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	c, err := apiclient.New(config, apiclient.Options{Transport: transport{x.net, p}, Log: log})
	if err != nil {
		return err
	}
	opts := x.spec.Manager
	if opts.LeaderElection != nil || opts.Sharding != nil || opts.MetricsAddr != "" {
		return fmt.Errorf("Spec.Manager: leave LeaderElection, Sharding and MetricsAddr empty")
	}
	opts.Clock, opts.Log = nil, log
	user := opts.Trace
	opts.Trace = func(e trace.Event) {
		x.hop(p, e)
		if user != nil {
			user(e)
		}
	}
	if opts.Source == nil {
		opts.Source = x.source(p, opts)
	}
	m, err := controller.NewManager(c, opts)
	if err != nil {
		return err
	}
	if err := x.spec.Setup(m); err != nil {
		return fmt.Errorf("Setup: %w", err)
	}
	ctx, cancel := context.WithCancel(x.ctx)
	p.cancel = cancel
	x.procs = append(x.procs, p)
	x.mu.Lock()
	x.cur, x.guarded = p, nil
	x.mu.Unlock()
	if l != nil {
		x.say(p, "starts, its view of %s lagging at v%d", l.coll, l.v)
	} else {
		x.say(p, "starts")
	}
	go func() {
		defer close(p.done)
		m.Run(ctx)
	}()
	return nil
}

// source builds each informer's Reflector as the Manager would, with its
// jitter drawn from the seed (so that backoffs and watch timeouts are the same
// in every execution) and its steps traced.
func (x *execution) source(p *process, opts controller.ManagerOptions) func(controller.InformerKey, apiclient.ResourceClient, fifo.Sink[*apiclient.Object]) informer.Runner {
	i := uint64(0)
	return func(key controller.InformerKey, rc apiclient.ResourceClient, sink fifo.Sink[*apiclient.Object]) informer.Runner {
		i++
		name := key.Resource
		// ListCheapest asks the server's release. apitest is kube-apiserver
		// v1.37 but serves no /version, so this Source tells it: the first
		// list is then one LIST of the latest state — a consistent read,
		// never served stale — unless Spec.FirstListAtZero asks for "0", in
		// pages, as before issue 38 and as client-go's LIST does. Never split:
		// how many parts depends on the machine's cores.
		lw := listwatch.Options{Name: name, LabelSelector: key.LabelSelector, FieldSelector: key.FieldSelector,
			List: opts.List, FirstListAtZero: x.spec.FirstListAtZero, Split: 1,
			ServerVersion: func(context.Context) (apiclient.ServerVersion, error) { return apitestRelease, nil },
			Logger:        opts.Log, Rand: rand.New(rand.NewPCG(x.seed, uint64(p.n)<<32|i)),
			OnStep: func(s listwatch.Step) {
				x.hop(p, trace.Event{Stage: trace.Reflector, Verb: string(s.Op), Key: s.Key, Informer: name, Step: s})
				if opts.OnStep != nil {
					opts.OnStep(s)
				}
			}}
		return listwatch.New(rc, sink, lw)
	}
}

// apitestRelease is the release apitest behaves as (its doc.go, Divergences, 7:
// Versions).
var apitestRelease = apiclient.ServerVersion{Major: "1", Minor: "37", GitVersion: "v1.37.0"}

// stop stops p and waits (on the fake clock) for its Run to return.
func (x *execution) stop(p *process) error {
	p.cancel()
	p.stop()
	select {
	case <-p.done:
		return nil
	case <-time.After(stopBound):
		return fmt.Errorf("process %d did not stop within %s of its context ending", p.n, stopBound)
	}
}

// stopBound is how long a process may take to stop: twice the default
// ShutdownTimeout, and a minute more.
const stopBound = 2*30*time.Second + time.Minute
