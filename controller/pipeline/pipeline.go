// Package pipeline holds what a running pipeline looks like at one moment —
// each informer's Reflector, FIFO, store and handlers, each controller's queue
// and workers — as plain values: controller.Manager.Pipeline fills them, the
// live page (controller/live) draws them, and the Manager's /metrics reads
// its series from the same values (controller/manager_metrics.go).
//
// # One name per value
//
// A value that /metrics shows has the name of its series here, in Go and in
// JSON (the page's), and its doc names the series: Store.Objects is
// kubewire_informer_cache_objects, Queue.Delayed is the queue's Delayed. The
// series' names are client-go's and controller-runtime's where those have
// one, so that their dashboards work; this package takes them rather than
// inventing a second name for the page.
//
// # Where this sits
//
//	apiclient ─▶ listwatch ─▶ fifo ─▶ store ─▶ queue ─▶ controller
//	                                                    ^^^^^^^^^^ controller/pipeline: values only
//
// It imports nothing, so that the controller package (which fills these) and
// the live page (which reads them) share them without the controller package
// exporting types that only the page needs, and without either importing the
// other.
//
// # Compared with client-go
//
// client-go has no snapshot of a running informer and workqueue; their state is
// spread over metrics (workqueue_depth, …) and what each type exposes.
package pipeline

// Snapshot is every stage of a Manager at one moment, stage by stage as the data
// flows: what the live page (controller/live) draws, and what
// controller.Manager.Pipeline returns. Each part is read from its component
// once (the Manager's one walker, manager_pipeline.go), which is also what
// each /metrics series of the component reads; nothing is counted twice. A
// plain value, with JSON names for the page.
type Snapshot struct {
	Leader      Leader       `json:"leader"`
	Informers   []Informer   `json:"informers"`
	Controllers []Controller `json:"controllers"`
}

// Leader: Elected says whether leader election is on; Leading whether this
// replica's controllers run (always, without election).
// leader_election_master_status is Leading, with election on.
type Leader struct {
	Elected bool `json:"elected"`
	Leading bool `json:"leading"`
}

// Informer is one informer: its Reflector, FIFO, store and handlers.
type Informer struct {
	Name      string    `json:"name"`
	Namespace string    `json:"namespace"`
	Selector  string    `json:"selector"`
	Reflector Reflector `json:"reflector"`
	FIFO      FIFO      `json:"fifo"`
	Store     Store     `json:"store"`
	Handlers  []Handler `json:"handlers"`
}

// Reflector is listwatch.Health, as the page shows it; an informer filled
// by something other than a Reflector (a test's script,
// ManagerOptions.Source) has only its State, "unknown", and no reflector
// series on /metrics.
type Reflector struct {
	// State is listwatch's ("listing", "watching", …);
	// kubewire_reflector_watching is 1 while it is "watching".
	State           string `json:"state"`
	ResourceVersion string `json:"resourceVersion"`
	LastError       string `json:"lastError"`
	// Relists is kubewire_reflector_relists_total.
	Relists int `json:"relists"`
	// WatchRestarts is kubewire_reflector_watch_restarts_total.
	WatchRestarts int `json:"watchRestarts"`
	// Received counts the objects received: listed, and watch events.
	Received uint64 `json:"received"`
	// LastEventAge is kubewire_reflector_last_event_age_seconds: seconds
	// since the last watch event or bookmark, -1 before the first.
	LastEventAge float64 `json:"lastEventAge"`
}

// FIFO: what waits in the FIFO, and the deltas popped from it and applied
// to the cache.
type FIFO struct {
	// Depth is kubewire_informer_fifo_depth.
	Depth int `json:"depth"`
	// Events is kubewire_informer_events_total: the deltas applied, by type
	// (Added, Updated, Deleted, Replaced, Sync).
	Events map[string]uint64 `json:"events"`
}

// Store: the objects cached, the resourceVersion the cache has caught up
// to, its indexes, and whether it has the initial list.
type Store struct {
	// Objects is kubewire_informer_cache_objects.
	Objects int `json:"objects"`
	// ResourceVersion is kubewire_informer_store_resource_version (there as
	// a number, -1 when it is none).
	ResourceVersion string  `json:"resourceVersion"`
	Indexes         []Index `json:"indexes"`
	// Synced is kubewire_informer_synced: the informer and its handlers have
	// the initial list.
	Synced bool `json:"synced"`
}

// Index is one index of a store: how many values objects are filed under
// (the namespace index of a cache that spans 3 namespaces has 3).
type Index struct {
	Name   string `json:"name"`
	Values int    `json:"values"`
}

// Handler is one handler: notifications waiting, whether it is handling
// one now, and how many it has handled. kubewire_informer_handler_backlog
// is the largest Backlog of an informer's handlers.
type Handler struct {
	Name    string `json:"name"`
	Backlog int    `json:"backlog"`
	Busy    bool   `json:"busy"`
	Handled uint64 `json:"handled"`
}

// Controller is one controller: its workqueue and its workers.
type Controller struct {
	Name    string  `json:"name"`
	Queue   Queue   `json:"queue"`
	Workers Workers `json:"workers"`
}

// Queue is the controller's workqueue (queue.Metrics, under its names).
type Queue struct {
	// Depth is workqueue_depth: keys waiting to be processed.
	Depth int `json:"depth"`
	// Processing is how many keys are handed to a worker and not yet Done.
	Processing int `json:"processing"`
	// Delayed is how many keys AddAfter holds until they are due: every
	// AddAfter, so a Result.RequeueAfter and a stale skip's wait as well as
	// a retry's backoff.
	Delayed int `json:"delayed"`
	// Adds is workqueue_adds_total.
	Adds uint64 `json:"adds"`
	// Retries is workqueue_retries_total: calls to AddAfter and AddRateLimited.
	Retries uint64 `json:"retries"`
}

// Workers are the controller's workers (controller.Stats, under its names).
type Workers struct {
	// Max is kubewire_max_concurrent_reconciles.
	Max int `json:"max"`
	// Active is kubewire_active_workers: Reconciles running now.
	Active int64 `json:"active"`
	// Backoff is kubewire_reconcile_backoff_requests: Requests waiting out a
	// backoff (after an error, a Requeue or a stale skip).
	Backoff int `json:"backoff"`
	// Reconciles counts Reconcile calls: kubewire_reconcile_total without its
	// stale_skip series.
	Reconciles uint64 `json:"reconciles"`
	// Errors is kubewire_reconcile_errors_total.
	Errors uint64 `json:"errors"`
}
