package cli

import (
	"bufio"
	"context"
	"fmt"
	"runtime"
	"sort"
	"sync/atomic"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller"
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
func runSync(ctx context.Context, s *session) error {
	c, cfg, err := s.connect()
	if err != nil {
		return err
	}
	res, err := s.resource(ctx, c)
	if err != nil {
		return err
	}
	if !res.Has("list") || !res.Has("watch") {
		return fmt.Errorf("%s cannot be synced: the server does not offer list and watch for it", res)
	}
	start := time.Now()
	var events atomic.Int64
	until := int64(s.integer("until-events", 0))
	enough := make(chan struct{})
	_, inf, err := s.informer(c, res, s.namespace(cfg))
	if err != nil {
		return err
	}
	inf.AddHandler(controller.HandlerFuncs{
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
	runErr := make(chan error, 1)
	go func() { runErr <- inf.Run(runCtx) }() // owned here: waited for below
	finish := func(err error) error {
		stop()
		if rerr := <-runErr; err == nil {
			err = rerr
		}
		if s.boolean("dump") {
			dump(s, inf.List())
		}
		return err
	}

	if !inf.WaitForCacheSync(ctx) {
		// Interrupted before the sync finished: a clean stop, with what we have.
		fmt.Fprintf(s.env.Stderr, "interrupted after %v: %d objects cached\n", time.Since(start).Round(time.Millisecond), inf.Len())
		return finish(nil)
	}
	took := time.Since(start)
	switch {
	case until > 0:
		select {
		case <-enough:
			fmt.Fprintf(s.env.Stderr, "%d events after sync in %v\n", until, time.Since(start)-took)
		case <-ctx.Done():
			fmt.Fprintf(s.env.Stderr, "interrupted after %d of %d events\n", events.Load(), until)
		}
	case s.boolean("watch"):
		<-ctx.Done()
		fmt.Fprintf(s.env.Stderr, "stopped after %d events\n", events.Load())
	}
	fmt.Fprintf(s.env.Stderr, "synced %d objects in %v; heap after GC %.1f MiB\n", inf.Len(), took, heapAfterGC())
	return finish(nil)
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
		lines[i] = o.Key() + " " + o.Metadata.ResourceVersion
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
