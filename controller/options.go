package controller

import (
	"time"

	"github.com/kubewire/kubewire/queue"
)

// Options tune one controller. The zero value is usable: one worker, retries
// without a limit, the default Limiter, no resync, no reconcile timeout, 30 s to
// finish on shutdown. The logger, the trace and the clock are the Manager's
// (NewController's arguments, for a controller run alone).
type Options struct {
	Workers int
	// MaxRetries, when positive, drops a Request whose Reconcile has failed
	// MaxRetries+1 times in a row (one try and MaxRetries retries): it is logged
	// at ERROR and counted in Stats.Dropped. 0 retries without a limit.
	MaxRetries int
	// Limiter spaces the retries of failing Requests; nil means the per-Request
	// backoff from 5 ms doubling to DefaultMaxBackoff, and, over all Requests, 10
	// retries a second after a burst of 100 (queue.DefaultLimiter's bucket),
	// whichever delay is longer.
	Limiter queue.Limiter[Request]
	// ResyncPeriod, when positive, reconciles every cached object of the For
	// resource this often, changed or not: the safety net for a world that
	// drifted without an event (controller-runtime's SyncPeriod, client-go's
	// resync). It is the one periodic setting; Result.RequeueAfter is a
	// Reconcile's own request for one object. A resync is not put to the
	// predicates: it always reaches Reconcile (predicate.go says why).
	ResyncPeriod time.Duration
	// ReconcileTimeout, when positive, is the deadline of each Reconcile's
	// context (controller-runtime's ReconciliationTimeout). It is wall-clock time
	// (context.WithTimeout): the Manager's Clock does not move it.
	ReconcileTimeout time.Duration
	// DisableStaleGuard turns the staleness guard off. It is on by default:
	// a Request is not reconciled again while a cache of the Manager's does
	// not yet show what its earlier reconciles wrote through the Manager's
	// client with their context; it is skipped, counted
	// (kubewire_reconcile_total{result="stale_skip"}), traced, and tried again
	// after 5 ms, doubling, at most 1 s apart, each write awaited for at most
	// StaleWaitLimit after its answer (doc.go, "A stale cache after your own
	// write"). Turn it off for a
	// Reconciler that reads the server rather than the cache, or that wants
	// every turn however stale its reads. The Manager installs the guard
	// (admit.go): a controller built with NewController alone has none.
	DisableStaleGuard bool
	// ShutdownTimeout bounds how long the controller waits, after the Manager
	// stops, for reconciles in flight; then their context is cancelled too. A
	// reconcile that ignores that cancellation gets one more ShutdownTimeout,
	// after which the controller returns an error and leaves it running:
	// shutdown never waits longer than twice this.
	ShutdownTimeout time.Duration
}

// Selection is what makes two informers of one resource different caches: the
// objects a label or field selector picks, and whether only their metadata is
// kept. Informers with the same resource, version and Selection are one informer,
// shared by every controller that asks for it. The namespace is the Manager's
// (ManagerOptions.Namespace).
type Selection struct {
	LabelSelector string
	FieldSelector string
	// MetadataOnly caches PartialObjectMetadata: names, labels, owners,
	// finalizers, no spec or status (informer.Options.MetadataOnly).
	MetadataOnly bool
}

// An InformerOption picks one of the Manager's informers of a resource
// (Manager.Informer, Lister, Index) or of a watch (For, Owns, Watches).
type InformerOption func(*Selection)

// WithLabels caches only the objects the label selector picks ("app=nginx").
func WithLabels(selector string) InformerOption {
	return func(s *Selection) { s.LabelSelector = selector }
}

// WithFields caches only the objects the field selector picks
// ("metadata.name=tools").
func WithFields(selector string) InformerOption {
	return func(s *Selection) { s.FieldSelector = selector }
}

// OnlyMetadata caches each object's metadata alone (controller-runtime's
// OnlyMetadata, client-go's metadata informer).
func OnlyMetadata() InformerOption {
	return func(s *Selection) { s.MetadataOnly = true }
}

// A WatchOption tunes a watch of a Builder: which informer (an InformerOption)
// and which updates pass (WithPredicates).
type WatchOption interface{ applyWatch(*watch) }

func (o InformerOption) applyWatch(w *watch) { o(&w.sel) }

// WithPredicates lets an update through only if every one of ps passes it. Adds
// and deletes always pass; so do resyncs of the For resource.
func WithPredicates(ps ...Predicate) WatchOption { return predicates(ps) }

type predicates []Predicate

func (p predicates) applyWatch(w *watch) { w.preds = append(w.preds, p...) }

// selection is the Selection that opts pick.
func selection(opts []InformerOption) Selection {
	var s Selection
	for _, o := range opts {
		o(&s)
	}
	return s
}
