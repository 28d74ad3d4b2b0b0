package controller

import (
	"strconv"

	"github.com/kubewire/kubewire/controller/pipeline"

	"github.com/kubewire/kubewire/controller/metrics"
	"github.com/kubewire/kubewire/listwatch"
)

// What /metrics shows of informers and controllers. Every value is read at scrape
// time from the component itself (GaugeFunc, CounterFunc), through the walker
// the live page reads too (manager_pipeline.go): nothing is counted twice, no
// value has two names, and nothing here runs on the hot path.

// labels names one informer in every family, by its name (InformerKey.name).
func (key InformerKey) labels() metrics.Labels {
	sel := key.LabelSelector
	if key.FieldSelector != "" {
		sel += ";" + key.FieldSelector
	}
	return metrics.Labels{"informer": key.name(), "version": key.Version, "namespace": key.Namespace, "selector": sel}
}

// name is the informer's name in logs, traces and metrics: the resource, and
// "/metadata" after it for a metadata-only informer, which is another cache of
// the same resource.
func (key InformerKey) name() string {
	if key.MetadataOnly {
		return key.Resource + "/metadata"
	}
	return key.Resource
}

// healthReporter is what a listwatch.Reflector offers beyond Run.
type healthReporter interface{ Health() listwatch.Health }

// informerMetrics registers an informer's series; each reads the informer's
// state (informerState, the live page's walker too) and takes one field of
// it, the one package pipeline names after the series. A Reflector's series
// only where a Reflector fills the informer.
func (m *Manager) informerMetrics(inf managedInformer) {
	l := inf.key.labels()
	state := func(f func(pipeline.Informer) float64) func() float64 {
		return func() float64 { return f(m.informerState(inf)) }
	}
	if inf.health != nil {
		m.reg.CounterFunc("kubewire_reflector_relists_total", "LISTs after the first, after a 410 or a failed apply.", l,
			state(func(s pipeline.Informer) float64 { return float64(s.Reflector.Relists) }))
		m.reg.CounterFunc("kubewire_reflector_watch_restarts_total", "Watches started again from a resourceVersion without a LIST.", l,
			state(func(s pipeline.Informer) float64 { return float64(s.Reflector.WatchRestarts) }))
		m.reg.GaugeFunc("kubewire_reflector_last_event_age_seconds", "Seconds since the last watch event or bookmark (-1: none yet).", l,
			state(func(s pipeline.Informer) float64 { return s.Reflector.LastEventAge }))
		m.reg.GaugeFunc("kubewire_reflector_watching", "1 while the reflector has a watch open.", l,
			state(func(s pipeline.Informer) float64 { return one(s.Reflector.State == listwatch.Watching.String()) }))
	}
	m.reg.GaugeFunc("kubewire_informer_cache_objects", "Objects in the informer's cache.", l,
		state(func(s pipeline.Informer) float64 { return float64(s.Store.Objects) }))
	m.reg.GaugeFunc("kubewire_informer_fifo_depth", "Entries waiting in the informer's FIFO.", l,
		state(func(s pipeline.Informer) float64 { return float64(s.FIFO.Depth) }))
	m.reg.GaugeFunc("kubewire_informer_handler_backlog", "Notifications waiting for the informer's slowest handler.", l,
		state(func(s pipeline.Informer) float64 {
			most := 0
			for _, h := range s.Handlers {
				most = max(most, h.Backlog)
			}
			return float64(most)
		}))
	for _, t := range []string{"Added", "Updated", "Deleted", "Replaced", "Sync"} {
		lt := inf.key.labels()
		lt["type"] = t
		m.reg.CounterFunc("kubewire_informer_events_total", "Deltas the informer applied to its cache, by type.", lt,
			state(func(s pipeline.Informer) float64 { return float64(s.FIFO.Events[t]) }))
	}
	m.reg.GaugeFunc("kubewire_informer_store_resource_version", "The resourceVersion the informer's cache has caught up to, as a number (-1: none yet, or not a number).", l,
		state(func(s pipeline.Informer) float64 { return resourceVersionNumber(s.Store.ResourceVersion) }))
	m.reg.HistogramFunc("kubewire_informer_processing_seconds", "Time to apply one popped FIFO entry to the cache and hand it to the handlers' listeners.", l, inf.ProcessingSeconds)
	m.reg.GaugeFunc("kubewire_informer_synced", "1 once the informer and its handlers have the initial list.", l,
		state(func(s pipeline.Informer) float64 { return one(s.Store.Synced) }))
}

// controllerMetrics registers a controller's series beyond its workqueue's
// (metrics.Workqueue); those of its workers read controllerState, as the live
// page does.
func (m *Manager) controllerMetrics(c *Controller) {
	l := metrics.Labels{"controller": c.Name()}
	workers := func(f func(pipeline.Workers) float64) func() float64 {
		return func() float64 { return f(controllerState(c).Workers) }
	}
	for r, name := range resultNames {
		lr := metrics.Labels{"controller": c.Name(), "result": name}
		m.reg.CounterFunc("kubewire_reconcile_total", "Requests a worker took, by how they ended: success, requeue_after, requeue, error, terminal (Reconcile calls), or stale_skip (not reconciled: a cache did not show the controller's own last write yet).",
			lr, func() float64 { return float64(c.stats.count(result(r))) })
	}
	stat := func(f func(Stats) float64) func() float64 { return func() float64 { return f(c.Stats()) } }
	m.reg.GaugeFunc("kubewire_reconcile_backoff_requests", "Requests waiting out a backoff before they are tried again (after an error, a Requeue or a stale skip).", l,
		workers(func(w pipeline.Workers) float64 { return float64(w.Backoff) }))
	m.reg.CounterFunc("kubewire_reconcile_errors_total", "Reconcile calls that returned an error (panics included).", l,
		workers(func(w pipeline.Workers) float64 { return float64(w.Errors) }))
	m.reg.CounterFunc("kubewire_reconcile_dropped_total", "Requests dropped after MaxRetries failures.", l, stat(func(s Stats) float64 { return float64(s.Dropped) }))
	m.reg.CounterFunc("kubewire_reconcile_panics_total", "Reconcile calls that panicked.", l, stat(func(s Stats) float64 { return float64(s.Panics) }))
	m.reg.CounterFunc("kubewire_reconcile_terminal_errors_total", "Reconcile errors marked Terminal, not retried (also in kubewire_reconcile_errors_total).", l, stat(func(s Stats) float64 { return float64(s.Terminal) }))
	m.reg.HistogramFunc("kubewire_reconcile_time_seconds", "How long each Reconcile took (controller-runtime's buckets).", l, c.stats.durations.Snapshot)
	m.reg.GaugeFunc("kubewire_active_workers", "Reconciles running now.", l,
		workers(func(w pipeline.Workers) float64 { return float64(w.Active) }))
	m.reg.GaugeFunc("kubewire_max_concurrent_reconciles", "Workers: the most Reconciles that may run at once.", l,
		workers(func(w pipeline.Workers) float64 { return float64(w.Max) }))
}

// one is 1 for true, 0 for false: a gauge of a condition.
func one(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// ownWritesMetrics registers the count of this process's writes given up on:
// never shown by a cache that would hold them within StaleWaitLimit of their
// answer (awaited.go). Its series appear with the first write given up on.
func (m *Manager) ownWritesMetrics() {
	m.abandoned = m.reg.CounterVec("kubewire_own_writes_abandoned_total",
		"Writes of this process no cache that would hold them showed within StaleWaitLimit of their answer, no longer awaited by the staleness guard or read-your-own-writes reads, by the controller whose reconcile made them (\"\" for none) and resource.",
		"controller", "resource")
}

// resourceVersionNumber is rv as a gauge's value. resourceVersions are opaque, but
// etcd's are integers, and a gauge that climbs shows a cache that keeps up. Like
// client-go's, only the last 15 digits are kept, which a float64 holds exactly.
func resourceVersionNumber(rv string) float64 {
	if len(rv) > 15 {
		rv = rv[len(rv)-15:]
	}
	n, err := strconv.ParseInt(rv, 10, 64)
	if err != nil || rv == "" {
		return -1
	}
	return float64(n)
}
