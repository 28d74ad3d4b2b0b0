package sharding

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/fifo"
	"github.com/kubewire/kubewire/listwatch"
)

// source fills a sharded informer with this replica's ranges of a resource and
// nothing else. It runs one Reflector at a time, for the ranges the Sharder
// last asked for; when they change it stops that Reflector and starts another,
// whose first list replaces the cache: objects of ranges given up leave it (as
// deletes whose final state is unknown), objects of ranges taken over enter it.
//
// It asks the server for the ranges with a shardSelector when the server serves
// one, which it finds out with a LIST of one object before each Reflector
// starts (a server that serves it echoes the selector in the list's ShardInfo;
// one that does not ignores the parameter). Otherwise it filters on its own
// side: every object is still sent and decoded, and those of other ranges are
// dropped before the FIFO, so the cache holds the same ~1/N either way.
type source struct {
	sh    *Sharder
	rc    apiclient.ResourceClient
	lw    listwatch.Options
	sink  fifo.Sink[*apiclient.Object]
	build func(listwatch.Options, fifo.Sink[*apiclient.Object]) informer.Runner
	inf   *informer.Informer

	server  atomic.Bool                    // the last Reflector asked the server for the ranges
	current atomic.Pointer[healthReporter] // the Reflector running, for its Health

	mu      sync.Mutex
	want    Set
	gen     uint64        // bumped by every cache call
	changed chan struct{} // closed when want changes
	synced  uint64        // the last gen whose list is in the store
	syncCh  chan struct{} // closed when synced moves
}

type healthReporter interface{ Health() listwatch.Health }

// Source is what fills inf, a sharded informer of rc, through its sink: this
// replica's ranges and nothing else, listed anew whenever they change (the
// Sharder waits on inf for a new range's list before it serves it). build
// makes each Reflector from the listwatch.Options (with the shard selector
// when the server filters) and the sink (wrapped to filter when it does not).
// The Runner it returns reports its Reflector's Health; run it as inf's
// source, from before the Sharder's first round.
func (s *Sharder) Source(inf *informer.Informer, rc apiclient.ResourceClient, lw listwatch.Options, sink fifo.Sink[*apiclient.Object],
	build func(listwatch.Options, fifo.Sink[*apiclient.Object]) informer.Runner) informer.Runner {
	src := &source{sh: s, inf: inf, rc: rc, lw: lw, sink: sink, build: build, changed: make(chan struct{}), syncCh: make(chan struct{})}
	s.mu.Lock()
	s.sources = append(s.sources, src)
	s.mu.Unlock()
	return src
}

// serverSide reports whether the server filters for this source (its
// shardSelector), rather than this replica.
func (src *source) serverSide() bool { return src.server.Load() }

// Health is the running Reflector's (zero before the first).
func (src *source) Health() listwatch.Health {
	if h := src.current.Load(); h != nil {
		return (*h).Health()
	}
	return listwatch.Health{}
}

// Run runs a Reflector for the ranges last asked for, until ctx is done. Until
// the Sharder first asks, it lists nothing: the informer is not synced, so no
// controller of it starts.
func (src *source) Run(ctx context.Context) error {
	for {
		src.mu.Lock()
		want, gen, changed := src.want, src.gen, src.changed
		src.mu.Unlock()
		if want.Empty() {
			select {
			case <-changed:
				continue
			case <-ctx.Done():
				return nil
			}
		}
		rctx, cancel := context.WithCancel(ctx)
		lw, sink := src.lw, fifo.Sink[*apiclient.Object](&shardSink{ctx: rctx, src: src, gen: gen, inner: src.sink})
		if src.detect(rctx, want) {
			lw.ShardSelector = want.Selector(src.sh.cfg.Key)
		} else {
			sink.(*shardSink).filter = want
		}
		r := src.build(lw, sink)
		if h, ok := r.(healthReporter); ok {
			src.current.Store(&h)
		}
		done := make(chan error, 1)
		go func() { done <- r.Run(rctx) }() // owned by this loop, which waits for it
		select {
		case <-changed:
			cancel()
			<-done
		case err := <-done:
			cancel()
			if ctx.Err() != nil {
				return nil
			}
			return err
		case <-ctx.Done():
			cancel()
			<-done
			return nil
		}
	}
}

// detect asks the server for one object of want with a shardSelector and
// reports whether it applied it. A failed request counts as "no": filtering
// on this side is always correct, only dearer, and the next range change asks
// again.
func (src *source) detect(ctx context.Context, want Set) bool {
	list, err := src.rc.List(ctx, apiclient.ListOptions{Limit: 1, ShardSelector: want.Selector(src.sh.cfg.Key)})
	server := err == nil && list.ShardInfo != nil
	if was := src.server.Swap(server); was != server || err != nil {
		src.sh.cfg.Logger.Info("shard selector", "resource", src.lw.Name, "served by the server", server, "error", err)
	}
	return server
}

// cache makes the source cache want (a new Reflector, unless it caches want
// already), and waits until the list of want is in the informer's store (false
// if ctx ends first; the Reflector goes on, and a later call waits again).
func (src *source) cache(ctx context.Context, want Set) bool {
	gen := src.list(want)
	for {
		src.mu.Lock()
		ok, ch := src.synced >= gen, src.syncCh
		src.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return false
		}
	}
}

// list makes the source list want from now on (a new Reflector, unless it
// lists want already) and returns the generation that list belongs to.
func (src *source) list(want Set) uint64 {
	src.mu.Lock()
	defer src.mu.Unlock()
	if !want.Equal(src.want) {
		src.want = want
		src.gen++
		close(src.changed)
		src.changed = make(chan struct{})
	}
	return src.gen
}

// listed notes that gen's list is in the store.
func (src *source) listed(gen uint64) {
	src.mu.Lock()
	defer src.mu.Unlock()
	if gen > src.synced {
		src.synced = gen
		close(src.syncCh)
		src.syncCh = make(chan struct{})
	}
}

// shardSink is the informer's sink as one Reflector of a source sees it: with
// filter set, objects outside it are dropped (client-side filtering); after
// each Replace it waits, on a goroutine of its own, for the store to stand at
// the list's resourceVersion, and tells the source.
type shardSink struct {
	ctx    context.Context // the Reflector's: done when it is replaced
	src    *source
	gen    uint64
	inner  fifo.Sink[*apiclient.Object]
	filter Set // empty: the server filters
}

func (s *shardSink) mine(obj *apiclient.Object) bool {
	return s.filter.Empty() || s.filter.Contains(Hash(s.src.sh.cfg.Key.Of(obj)))
}

func (s *shardSink) Add(obj *apiclient.Object) error {
	if !s.mine(obj) {
		return nil
	}
	return s.inner.Add(obj)
}

func (s *shardSink) Update(obj *apiclient.Object) error {
	if !s.mine(obj) {
		return nil
	}
	return s.inner.Update(obj)
}

func (s *shardSink) Delete(obj *apiclient.Object) error {
	if !s.mine(obj) {
		return nil
	}
	return s.inner.Delete(obj)
}

func (s *shardSink) Replace(list []*apiclient.Object, rv string) error {
	if !s.filter.Empty() {
		kept := list[:0:0]
		for _, obj := range list {
			if s.mine(obj) {
				kept = append(kept, obj)
			}
		}
		list = kept
	}
	if err := s.inner.Replace(list, rv); err != nil {
		return err
	}
	src, gen, ctx := s.src, s.gen, s.ctx
	go func() { // ends when the store has the list, or the Reflector is stopped
		if src.inf == nil || src.inf.WaitForStoreVersion(ctx, rv) {
			src.listed(gen)
		}
	}()
	return nil
}

// Bookmark passes listwatch.Bookmarker through: a bookmark names no object, so
// it is every range's, and it moves the store's resourceVersion on a quiet
// sharded resource as on any other (StoreResourceVersion and its gauge, and
// the waits of WaitForStoreVersion).
func (s *shardSink) Bookmark(resourceVersion string) error {
	if b, ok := s.inner.(listwatch.Bookmarker); ok {
		return b.Bookmark(resourceVersion)
	}
	return nil
}

// Held passes listwatch.Holder through, so that a relist keeps the objects the
// cache holds unchanged instead of a second copy.
func (s *shardSink) Held(obj *apiclient.Object) (*apiclient.Object, bool) {
	if h, ok := s.inner.(listwatch.Holder); ok {
		return h.Held(obj)
	}
	return nil, false
}
