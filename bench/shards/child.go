package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/controller/lease"
	"github.com/kubewire/kubewire/controller/sharding"
)

// Polling: how often a replica looks at its Manager's state, and how long the
// state must stay unchanged, every cached object reconciled, before it counts
// as done.
const (
	pollEvery = 100 * time.Millisecond
	quietFor  = time.Second
	// notYet is when a reconcile that came before the replica settled asks to be
	// called again.
	notYet = 20 * time.Millisecond
)

// replica is one child: a Manager, a sharded ConfigMap informer, and a
// controller whose reconciles sleep.
type replica struct {
	delay time.Duration
	inf   *informer.Informer

	// settled turns true once the replica serves its final share: from then on
	// reconciles do their work and are counted.
	settled atomic.Bool

	mu          sync.Mutex
	reconciled  map[controller.Request]bool
	reconciles  int
	first, last time.Time // the first reconcile's start, the last one's end
}

// Reconcile is the benchmark's stand-in for real work.
func (r *replica) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	// Level-based: the object is read from the cache, and one that is not
	// there (not in this replica's share, or no longer) needs nothing done.
	if _, err := r.inf.Get(req.Namespace, req.Name); err != nil {
		return controller.Result{}, nil
	}
	// Before the group has settled this replica may hold objects that are
	// about to move to another; doing their work now would count twice.
	if !r.settled.Load() {
		return controller.Result{RequeueAfter: notYet}, nil
	}
	start := time.Now()
	t := time.NewTimer(r.delay)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return controller.Result{}, ctx.Err()
	}
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reconciled[req] = true
	r.reconciles++
	if r.first.IsZero() || start.Before(r.first) {
		r.first = start // the run is timed from the start of the first reconcile's work
	}
	r.last = now
	return controller.Result{}, nil
}

// progress counts the cached objects in share, the replica's final share, and
// how many of those have been reconciled. Objects cached outside share (which
// a cache should not hold) are left out: the replica may not reconcile them.
func (r *replica) progress(share sharding.Set) (inShare, done int) {
	objs := r.inf.List()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, obj := range objs {
		if !share.Contains(sharding.Hash(sharding.ByUID.Of(obj))) {
			continue
		}
		inShare++
		if r.reconciled[controller.RequestFor(obj)] {
			done++
		}
	}
	return inShare, done
}

// runChild is one replica: it runs until its share is reconciled, prints its
// result, and then waits for the parent to close its stdin (or for a signal)
// before stopping, so that no replica leaves, handing its share to the
// others, while they are still being measured.
func runChild(ctx context.Context, cfg config) error {
	level := slog.LevelWarn
	if cfg.verbose {
		level = slog.LevelInfo
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})).With("replica", cfg.identity)

	c, err := newClient(cfg, log)
	if err != nil {
		return err
	}
	m, err := controller.NewManager(c, controller.ManagerOptions{
		Namespace: cfg.namespace,
		Sharding:  &sharding.Config{Member: lease.Member{Namespace: cfg.namespace, Identity: cfg.identity}, Name: group},
		Log:       log,
	})
	if err != nil {
		return err
	}
	r := &replica{delay: cfg.delay, reconciled: map[controller.Request]bool{}}
	b := controller.New(m, "shardbench", controller.Options{Workers: cfg.workers}).
		For(apiclient.ConfigMaps, controller.WithLabels(objectLabel))
	r.inf = m.Informer(apiclient.ConfigMaps, controller.WithLabels(objectLabel)) // the For's: this replica's share
	if _, err := b.Complete(r); err != nil {
		return err
	}

	// The Manager runs until the parent says stop; a clean stop deletes the Lease.
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	go func() { // ends with the process
		io.Copy(io.Discard, os.Stdin) // returns when the parent closes our stdin
		stop()
	}()
	var runErr error
	managerDone := make(chan struct{}) // closed when m.Run has returned runErr
	go func() { runErr = m.Run(runCtx); close(managerDone) }()

	res, err := measure(runCtx, cfg, m, r, managerDone)
	if err != nil {
		stop()
		<-managerDone
		return errors.Join(err, runErr)
	}
	line, _ := json.Marshal(res) // a struct of plain fields always marshals
	fmt.Println(string(line))

	<-runCtx.Done()
	<-managerDone
	return runErr
}

// measure waits until the replica serves its final share and has reconciled
// every object of it, then reads the numbers.
func measure(ctx context.Context, cfg config, m *controller.Manager, r *replica, managerDone <-chan struct{}) (result, error) {
	// Every replica computes the same assignment from the same member list:
	// this one's final share is its part of Assign(r1…rN).
	var ids []string
	for i := 1; i <= cfg.expect; i++ {
		ids = append(ids, fmt.Sprintf("r%d", i))
	}
	final := sharding.Assign(ids)[cfg.identity]
	if final.Empty() {
		return result{}, fmt.Errorf("identity %s is not one of %v", cfg.identity, ids)
	}
	// The Sharder's Status says what this replica serves and how many members
	// it sees; settled is serving the final share among all N.
	isFinal := func() bool {
		st := m.Sharder().Status()
		return st.Serving.Equal(final) && len(st.Members) == cfg.expect
	}

	deadline := time.After(cfg.timeout)
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	var settled time.Time
	var settleCPU float64
	var lastCached, lastInShare, lastDone int
	lastChange := time.Now()
	for {
		select {
		case <-ctx.Done():
			return result{}, ctx.Err()
		case <-managerDone:
			return result{}, errors.New("the Manager stopped before the share was reconciled")
		case <-deadline:
			status, err := m.Ready()
			inShare, done := r.progress(final)
			return result{}, fmt.Errorf("not done after %s: %d of the %d cached objects of its share reconciled (%d cached in all); ready: %q %v",
				cfg.timeout, done, inShare, r.inf.Len(), status, err)
		case <-tick.C:
		}
		status, err := m.Ready()
		if settled.IsZero() {
			if err != nil || !isFinal() {
				continue
			}
			settled = time.Now()
			settleCPU = cpuSeconds() // the lists and watches, before the reconciles' work
			r.settled.Store(true)
		}
		inShare, done := r.progress(final)
		if cached := r.inf.Len(); cached != lastCached || inShare != lastInShare || done != lastDone {
			lastCached, lastInShare, lastDone, lastChange = cached, inShare, done, time.Now()
		}
		if inShare == 0 || done < inShare || time.Since(lastChange) < quietFor || !isFinal() {
			continue
		}

		// Done: the heap, with the cache full, after a collection.
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		r.mu.Lock()
		defer r.mu.Unlock()
		return result{
			Identity:       cfg.identity,
			Cached:         lastCached,
			InShare:        inShare,
			Reconciled:     len(r.reconciled),
			Reconciles:     r.reconciles,
			FirstReconcile: r.first.UnixNano(),
			LastReconcile:  r.last.UnixNano(),
			Settled:        settled.UnixNano(),
			HeapBytes:      ms.HeapAlloc,
			CPUSeconds:     settleCPU,
			ServerSide:     m.Sharder().Status().ServerSide > 0,
			Status:         status,
		}, nil
	}
}

// cpuSeconds is the user and system time this process has used.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
