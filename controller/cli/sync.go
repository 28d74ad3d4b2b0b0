package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/controller/trace"
	"github.com/kubewire/kubewire/listwatch"
)

// runSync is `kubewire sync RESOURCE`: the pipeline without a controller —
// Reflector → FIFO → store — run until the cache holds what the server holds.
// Then, on stderr, one line:
//
//	synced N objects in DURATION; heap after GC X MiB
//
// --watch keeps the cache in step until interrupted; --until-events N until N
// more watch events have been applied. --dump prints the cache, sorted, as
// "namespace/name resourceVersion" lines, however the command ends. The same
// contract as ../shared/bench/clientgo's sync, so the two can be compared.
//
// Interrupted before the cache was synced, or short of --until-events, it says
// so and exits 130 (SIGINT) or 143 (SIGTERM), --dump printing what it has; with
// --watch the signal is the designed end, once synced: exit 0.
//
// While a first list that spans more than one page is still arriving, stderr also
// gets "listed N objects…" at most once a second (listProgress): a sync of a
// large cluster takes minutes, and silence looks like a hang.
func runSync(ctx context.Context, s *session) error {
	page, err := s.openUI("sync")
	if err != nil {
		return err
	}
	c, cfg, res, err := s.target(ctx)
	if err != nil {
		return err
	}
	if err := listedAndWatched(res, "synced"); err != nil {
		return err
	}
	start := time.Now()
	var events atomic.Int64
	until := int64(s.integer("until-events", 0))
	enough := make(chan struct{})
	progress := &listProgress{}
	var stderrMu sync.Mutex // progress lines and --trace lines, one at a time
	m, inf, err := s.syncInformer(c, res, s.namespace(cfg), progress, &stderrMu)
	if err != nil {
		return err
	}
	inf.AddHandler("sync", informer.HandlerFuncs{
		AddFunc: func(_ *apiclient.Object, initial bool) {
			if !initial {
				countEvent(&events, until, enough)
			}
		},
		UpdateFunc: func(_, _ *apiclient.Object) { countEvent(&events, until, enough) },
		DeleteFunc: func(_ *apiclient.Object, _ bool) { countEvent(&events, until, enough) },
	}, 0)

	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	// A list over its bounds (apiclient.ListLimits) would be refused again at
	// every try: a Reflector goes on trying, as a controller's must, but sync
	// stops it at once and says why, in one line.
	waitCtx, giveUp := context.WithCancelCause(ctx)
	defer giveUp(nil)
	progress.onLimit = func(err error) { giveUp(err); stop() }
	runErr := make(chan error, 1)
	go func() { runErr <- inf.Run(runCtx) }() // owned here: waited for below
	served := page.serve(runCtx, m)
	finish := func(err error) error {
		stop()
		if rerr := <-runErr; err == nil {
			err = rerr
		}
		if perr := <-served; err == nil {
			err = perr
		}
		if s.boolean("dump") {
			dump(s, inf.List())
		}
		return err
	}

	// The progress goroutine is owned here: synced stops it, and it has returned
	// before anything below writes to stderr.
	synced := make(chan struct{})
	reported := make(chan struct{})
	go func() {
		defer close(reported)
		progress.report(synced, s.env.Stderr, &stderrMu, time.Second)
	}()
	hasSynced := inf.WaitForCacheSync(waitCtx)
	close(synced)
	<-reported
	if cause := context.Cause(waitCtx); !hasSynced && errors.Is(cause, apiclient.ErrListLimit) {
		return finish(cause)
	}
	if !hasSynced {
		// Interrupted before the sync finished: a clean stop, with what we have
		// (--dump prints it), and an exit status that says it is not all.
		fmt.Fprintf(s.env.Stderr, "interrupted after %v: %d objects cached\n", time.Since(start).Round(time.Millisecond), inf.Len())
		return finish(errStopped)
	}
	took := time.Since(start)
	s.log.Debug("synced", "objects", inf.Len(), "took", took)
	var short error // --until-events stopped short of its count
	switch {
	case until > 0:
		select {
		case <-enough:
			fmt.Fprintf(s.env.Stderr, "%d events after sync in %v\n", until, time.Since(start)-took)
		case <-ctx.Done():
			fmt.Fprintf(s.env.Stderr, "interrupted after %d of %d events\n", events.Load(), until)
			short = errStopped
		}
	case s.boolean("watch"):
		// The designed end: the cache was in step until the signal, exit 0.
		<-ctx.Done()
		fmt.Fprintf(s.env.Stderr, "stopped after %d events\n", events.Load())
	}
	fmt.Fprintf(s.env.Stderr, "synced %d objects in %v; heap after GC %.1f MiB\n", inf.Len(), took, heapAfterGC())
	return finish(short)
}

// syncInformer builds the informer sync runs: the Reflector for res in ns with -l
// and --field-selector (--watch-list streams the list; --metadata-only asks for
// PartialObjectMetadata), into a FIFO and the store.
// OnStep hands every Reflector step to progress; --trace prints each hop as a
// line.
//
// Counting needs OnStep, and with OnStep set the Reflector builds an ITEM step
// (one key string) per listed object: an allocation per object, small next to
// decoding it.
func (s *session) syncInformer(c *apiclient.Client, res apiclient.Resource, ns string, progress *listProgress, mu *sync.Mutex) (*controller.Manager, *informer.Informer, error) {
	var emit func(trace.Event)
	if t := s.tracer(); t != nil {
		emit = func(e trace.Event) { mu.Lock(); t(e); mu.Unlock() }
	}
	m, err := controller.NewManager(c, controller.ManagerOptions{Namespace: ns, List: s.listMethod(), Trace: emit, OnStep: progress.step, Log: s.log})
	if err != nil {
		return nil, nil, err
	}
	opts := []controller.InformerOption{controller.WithLabels(s.str("selector")), controller.WithFields(s.str("field-selector"))}
	if s.boolean("metadata-only") {
		opts = append(opts, controller.OnlyMetadata())
	}
	return m, m.Informer(res, opts...), nil
}

// listProgress counts the objects of the first list as the Reflector receives
// them. The informer cannot say: the Reflector hands the FIFO the whole list in
// one Replace at the end, so Len and FIFOLen stay 0 until then.
//
// The zero value is ready. step is called by the Reflector's goroutine and report
// by another: the fields are atomics.
type listProgress struct {
	items  atomic.Int64 // objects of the current attempt at the first list
	pages  atomic.Int64 // pages asked for in that attempt
	listed atomic.Bool  // the first list is complete: stop counting
	// onLimit, when set, is told when the first list failed over its bounds.
	onLimit func(error)
}

// step takes one Reflector step. A LIST of page 1 starts the count again: the
// Reflector starts over after an expired continue token, or after a failed list.
func (p *listProgress) step(st listwatch.Step) {
	if p.listed.Load() {
		return
	}
	switch st.Op {
	case listwatch.OpList:
		if st.Page <= 1 {
			p.items.Store(0)
		}
		p.pages.Store(int64(st.Page))
	case listwatch.OpItem:
		p.items.Add(1)
	case listwatch.OpListed:
		p.listed.Store(true)
	case listwatch.OpError:
		if p.onLimit != nil && errors.Is(st.Err, apiclient.ErrListLimit) {
			p.onLimit(st.Err)
		}
	}
}

// report writes "listed N objects…" to w every interval until stop is closed,
// but only while the first list is incomplete and has gone past its first page:
// a list that comes in one page (most syncs, since the Reflector's first LIST
// is served from the watch cache without a limit) prints nothing.
func (p *listProgress) report(stop <-chan struct{}, w io.Writer, mu *sync.Mutex, interval time.Duration) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
			if p.listed.Load() || p.pages.Load() < 2 {
				continue
			}
			mu.Lock()
			fmt.Fprintf(w, "listed %d objects…\n", p.items.Load())
			mu.Unlock()
		}
	}
}

func countEvent(events *atomic.Int64, until int64, enough chan struct{}) {
	if n := events.Add(1); n == until {
		close(enough)
	}
}

// dump prints "namespace/name resourceVersion" (name alone when cluster-scoped),
// sorted as lines.
func dump(s *session, objs []*apiclient.Object) {
	lines := make([]string, len(objs))
	for i, o := range objs {
		lines[i] = printable(o.Key()) + " " + printable(o.Metadata.ResourceVersion)
	}
	sort.Strings(lines)
	w := bufio.NewWriter(s.env.Stdout)
	for _, l := range lines {
		w.WriteString(l)
		w.WriteByte('\n')
	}
	w.Flush()
}

func heapAfterGC() float64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.HeapAlloc) / (1 << 20)
}
