package listwatch

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/kubewire/kubewire/apiclient"
)

// Options tune a Reflector. The zero value gives client-go's behaviour: pages of 500,
// watch timeouts between 5 and 10 minutes, client-go's backoff, LIST
// rather than streaming lists (ListCheapest without a ServerVersion to ask). New
// copies the Options; changing them afterwards has no effect.
type Options struct {
	// Name names the reflector in logs, e.g. "pods" or "deployments.apps in demo".
	Name string
	// LabelSelector and FieldSelector narrow what is listed and watched; they are
	// passed to the server as they are.
	LabelSelector string
	FieldSelector string
	// ShardSelector asks the server for one hash range of the collection
	// (apiclient.ListOptions.ShardSelector); passed on every list and watch as it is.
	ShardSelector string
	// PageSize is the limit of each LIST page; 0 means 500, negative means no limit.
	PageSize int64
	// List is how the Reflector lists: ListCheapest (the zero value), ListPaged
	// or ListStreaming.
	List ListMethod
	// FirstListAtZero makes the first LIST ask resourceVersion=0 — whatever
	// state the server's watch cache holds, which may be behind etcd by any
	// amount — as client-go's LIST does, even where the latest state is as cheap
	// (ListCheapest on 1.33 and later: list.go). Kept to show what that costs: a
	// replica restarted behind a lagging API server acts on an old view.
	FirstListAtZero bool
	// ServerVersion tells ListCheapest the server's release; the informer passes
	// apiclient.Client.ServerVersion, which asks once per Client. nil: LIST, and
	// no split.
	ServerVersion func(context.Context) (apiclient.ServerVersion, error)
	// Split is the most requests a large LIST is split into, read at once at one
	// resourceVersion (split.go): by hash range where the server serves
	// shardSelector, by namespace in all namespaces otherwise. 0 means as many as
	// this process has cores, up to 8, on a server of 1.34 or later and with 4
	// cores or more; 1 never splits.
	Split int
	// MinWatchTimeout: each watch asks the server to end it after a random time in
	// [MinWatchTimeout, 2×MinWatchTimeout), so that many clients do not all re-watch
	// at once; 0 means 5 minutes.
	MinWatchTimeout time.Duration
	// IdleMargin: a watch that delivers nothing, not even a bookmark, for its
	// timeout plus this is presumed dead and dropped; 0 means 30 seconds.
	IdleMargin time.Duration
	// Backoff shapes the waits after failures; the zero value is client-go's.
	Backoff Backoff
	// MaxUnreachable caps the waits (before jitter) while the server does not
	// answer at all (Backoff says why); 0 means 1 second.
	MaxUnreachable time.Duration
	// Decode says how objects are decoded; the zero value drops managedFields.
	Decode apiclient.DecodeOptions
	// Clock times backoffs and watch timeouts; nil means the real clock.
	Clock apiclient.Clock
	// Rand draws the jitter of backoffs and the watch timeouts; nil means
	// math/rand/v2's global source. Tests pass rand.New(rand.NewPCG(1, 2)) to make
	// both repeatable. Only the Run goroutine draws from it.
	Rand *rand.Rand
	// OnStep, when set, is called for every Step: the --trace output, the golden
	// files of the scenario tests. It is called from the Run goroutine, so calls
	// never overlap. It must not block for long: the reflector waits for it.
	OnStep func(Step)
	// Logger receives failures (Warn) and the steps (Debug); nil means
	// slog.Default().
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.PageSize == 0 {
		o.PageSize = 500
	}
	if o.MinWatchTimeout <= 0 {
		o.MinWatchTimeout = 5 * time.Minute
	}
	if o.IdleMargin <= 0 {
		o.IdleMargin = 30 * time.Second
	}
	o.Backoff = backoffDefaults(o.Backoff)
	if o.MaxUnreachable <= 0 {
		o.MaxUnreachable = time.Second
	}
	if o.Clock == nil {
		o.Clock = apiclient.RealClock{}
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}
