package controller

import (
	"errors"
	"fmt"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/informer"
)

// Builder describes one controller, in the words a reader would use: it
// reconciles objects of one resource (For), owns objects of others (Owns),
// watches yet others through a mapping (Watches), and runs a Reconciler
// (Complete). It is the one way to build a Controller that a Manager runs
// (NewController builds the loop alone, which nothing fills but its caller):
//
//	_, err := controller.New(m, "foo", controller.Options{Workers: 2}).
//		For(Foos, controller.WithPredicates(controller.GenerationChanged)).
//		Owns(apiclient.Deployments).
//		Complete(reconciler)
//
// Everything process-wide comes from the Manager: the client, the informers
// (shared by every controller that watches the same thing), the logger, the
// trace, the clock, the metrics, sharding's gate. Nothing is passed twice.
//
// This is controller-runtime's builder (NewControllerManagedBy(mgr).For().Owns()
// .Watches().Complete()) and kube-rs's Controller::new().owns().watches(). A
// Builder is used once, from one goroutine; its methods return it, so that the
// description reads as one expression.
type Builder struct {
	m       *Manager
	name    string
	opts    Options
	primary *watch
	others  []watch
	err     error
}

// watch is one source of Requests: an informer, and how its events become
// Requests.
type watch struct {
	res   apiclient.Resource
	sel   Selection
	preds []Predicate
	// toRequests maps an object to the Requests it causes; nil means the
	// object's own Request (For).
	toRequests func(*apiclient.Object) []Request
	// owns: the Requests are of the object's controller owner, when it is of
	// the primary resource (Owns; Complete sets toRequests).
	owns bool
	// handler, when set, replaces toRequests and preds: a handler of the
	// caller's own that enqueues what it decides (WatchesWith).
	handler func(enqueue func(Request)) informer.Handler
}

// New begins the description of a controller named name (for logs, metrics and
// the trace) that m will run with opts.
func New(m *Manager, name string, opts Options) *Builder {
	return &Builder{m: m, name: name, opts: opts}
}

// For names the resource the controller reconciles: each add, update and
// delete of one of its objects becomes that object's Request, and an update
// passes only if every predicate given with WithPredicates passes it. With
// Options.ResyncPeriod, every cached object of it is reconciled again each
// period, predicates or not. It is required, and given once.
//
// With a sharding Manager (ManagerOptions.Sharding) this resource is the one
// shared out: the replica caches and reconciles its share of it alone.
func (b *Builder) For(res apiclient.Resource, opts ...WatchOption) *Builder {
	if b.primary != nil {
		b.fail(fmt.Errorf("For given twice (%s, then %s): a controller reconciles one resource", b.primary.res, res))
		return b
	}
	w := newWatch(res, opts)
	b.primary = &w
	if err := b.m.shardFor(res); err != nil {
		b.fail(err)
	}
	return b
}

// Owns watches objects of res that the primary resource controls: each of their
// events becomes the Request of the owner their controller reference names
// (ChildOf), so a child deleted, scaled or changed by hand brings its owner
// back to Reconcile. This is controller-runtime's Owns; ChildOf says how a
// controller reference is made and read.
func (b *Builder) Owns(res apiclient.Resource, opts ...WatchOption) *Builder {
	w := newWatch(res, opts)
	w.owns = true
	b.others = append(b.others, w)
	return b
}

// Watches watches objects of res and maps each event's object to the Requests
// it causes with toRequests (on an update, the object before and after; on a
// delete, its last state): every pod matching a deployment's selector, the
// objects a Secret is referenced by (ToIndexed).
func (b *Builder) Watches(res apiclient.Resource, toRequests func(*apiclient.Object) []Request, opts ...WatchOption) *Builder {
	if toRequests == nil {
		b.fail(fmt.Errorf("Watches(%s) without a mapping: use For for the reconciled resource, Owns for what it controls", res))
		return b
	}
	w := newWatch(res, opts)
	w.toRequests = toRequests
	b.others = append(b.others, w)
	return b
}

// WatchesWith watches objects of res through a handler of the caller's making,
// for a controller that reacts to transitions (a pod that was Pending and is
// now Running) rather than to every change: handler is given enqueue, and its
// Handler calls it with the Requests to reconcile. Predicates do not apply.
func (b *Builder) WatchesWith(res apiclient.Resource, handler func(enqueue func(Request)) informer.Handler, opts ...InformerOption) *Builder {
	w := watch{res: res}
	for _, o := range opts {
		o(&w.sel)
	}
	w.handler = handler
	b.others = append(b.others, w)
	return b
}

// Complete builds the controller with r as its Reconciler and adds it to the
// Manager, which starts it (at once if it is running; with leader election,
// while this replica leads). The error says what in the description cannot
// work: no For, For twice, a Watches without a mapping, no Reconciler, a name
// another controller of the Manager has, a Manager that has stopped; nothing is
// registered then.
func (b *Builder) Complete(r Reconciler) (*Controller, error) {
	if b.primary == nil {
		b.fail(errors.New("no For: name the resource the controller reconciles"))
	}
	if r == nil {
		b.fail(errors.New("no Reconciler"))
	}
	if b.err == nil {
		b.fail(b.m.claim(b.name)) // before anything is built: a refused Complete registers nothing
	}
	if b.err != nil {
		return nil, fmt.Errorf("controller %s: %w", b.name, b.err)
	}
	c := NewController(b.name, r, b.opts, b.m.clock(), b.m.opts.Log)
	c.trace = b.m.opts.Trace // before its handlers, which trace what they queue
	primary := *b.primary
	c.primary = b.m.informer(primary.res, primary.sel)
	c.watch(c.primary, primary, b.opts.ResyncPeriod)
	for _, w := range b.others {
		if w.owns {
			w.toRequests = toOwner(primary.res)
		}
		c.watch(b.m.informer(w.res, w.sel), w, 0)
	}
	if err := b.m.add(c); err != nil {
		b.m.release(b.name)
		return nil, fmt.Errorf("controller %s: %w", b.name, err)
	}
	return c, nil
}

func (b *Builder) fail(err error) {
	if b.err == nil {
		b.err = err
	}
}

func newWatch(res apiclient.Resource, opts []WatchOption) watch {
	w := watch{res: res}
	for _, o := range opts {
		o.applyWatch(&w)
	}
	return w
}
