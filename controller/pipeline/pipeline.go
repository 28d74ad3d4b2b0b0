// Package pipeline holds what a running pipeline looks like at one moment —
// each informer's Reflector, FIFO, store and handlers, each controller's queue
// and workers — as plain values: controller.Manager.Pipeline fills them, the
// live page (controller/live) draws them.
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
// controller.Manager.Pipeline returns. Each value is read from the
// component itself, as /metrics reads it; nothing is counted twice. A plain
// value, with JSON names for the page.
type Snapshot struct {
	Leader      Leader       `json:"leader"`
	Informers   []Informer   `json:"informers"`
	Controllers []Controller `json:"controllers"`
}

// Leader: Elected says whether leader election is on; Leading whether this
// replica's controllers run (always, without election).
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

// Reflector is listwatch.Health, as the page shows it. Events counts the
// objects received (listed, and watch events); an informer filled by something
// other than a Reflector (a test's script, ManagerOptions.Source) has only its
// State, "unknown".
type Reflector struct {
	State           string `json:"state"`
	ResourceVersion string `json:"resourceVersion"`
	LastError       string `json:"lastError"`
	Relists         int    `json:"relists"`
	WatchRestarts   int    `json:"watchRestarts"`
	Events          uint64 `json:"events"`
}

// FIFO: what waits in the FIFO, and how many deltas have been popped.
type FIFO struct {
	Depth  int    `json:"depth"`
	Popped uint64 `json:"popped"`
}

// Store: the objects cached, the resourceVersion the cache has caught up
// to, and its indexes.
type Store struct {
	Objects         int     `json:"objects"`
	ResourceVersion string  `json:"resourceVersion"`
	Indexes         []Index `json:"indexes"`
}

// Index is one index of a store: how many values objects are filed under
// (the namespace index of a cache that spans 3 namespaces has 3).
type Index struct {
	Name   string `json:"name"`
	Values int    `json:"values"`
}

// Handler is one handler: notifications waiting, whether it is handling
// one now, and how many it has handled.
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

// Queue: keys waiting (Depth), handed to a worker (InFlight), held back by
// AddAfter or the rate limiter (RetriesWaiting); Adds and Retries since start.
type Queue struct {
	Depth          int    `json:"depth"`
	InFlight       int    `json:"inFlight"`
	RetriesWaiting int    `json:"retriesWaiting"`
	Adds           uint64 `json:"adds"`
	Retries        uint64 `json:"retries"`
}

// Workers: how many may run (Max), run now (Busy), and have run.
type Workers struct {
	Max        int    `json:"max"`
	Busy       int64  `json:"busy"`
	Reconciles uint64 `json:"reconciles"`
	Errors     uint64 `json:"errors"`
}
