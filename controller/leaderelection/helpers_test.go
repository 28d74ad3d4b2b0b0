package leaderelection_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/controller/leaderelection"
	"github.com/kubewire/kubewire/controller/lease"
)

// The tests run replicas against one in-memory Lease server. Each replica has a
// fake clock of its own, as each process has its own clock; the cluster moves all
// clocks forward together, from one wait to the next, so no test sleeps and every
// replica sees the same time pass.

const (
	ns   = "default"
	name = "kubewire"
)

// parkingClock is a fake clock that signals each wait the elector starts, so the
// test knows the elector is idle before it moves time.
type parkingClock struct {
	*clock.Fake
	// parked receives once per After. The cluster consumes every signal before it
	// moves time, so the buffer of one never fills and After never blocks.
	parked chan struct{}
}

func (c *parkingClock) After(d time.Duration) <-chan time.Time {
	ch := c.Fake.After(d)
	c.parked <- struct{}{}
	return ch
}

// replica is one process: an Elector, its clock, and what its callbacks saw.
type replica struct {
	id     string
	clock  *parkingClock
	e      *leaderelection.Elector
	cancel context.CancelFunc
	done   chan error // Run's result

	// Owned by the test goroutine (cluster.settle).
	parked   bool
	finished bool
	err      error

	workEnded atomic.Bool // the work's ctx was cancelled and it returned
	stopped   atomic.Bool // onStoppedLeading was called
}

// cluster is the replicas and the server, and the time that has passed.
type cluster struct {
	t        *testing.T
	srv      *leaseServer
	elapsed  time.Duration
	replicas []*replica
	working  atomic.Int32 // replicas whose work is running
}

func newCluster(t *testing.T) *cluster {
	t.Helper()
	c := &cluster{t: t, srv: newLeaseServer(t)}
	t.Cleanup(func() {
		for _, r := range c.replicas {
			r.cancel()
			if !r.finished {
				<-r.done
			}
		}
	})
	return c
}

// start runs a replica with identity id; change edits its Config first.
func (c *cluster) start(id string, change ...func(*leaderelection.Config)) *replica {
	c.t.Helper()
	clock := &parkingClock{Fake: clock.NewFake(), parked: make(chan struct{}, 1)}
	clock.Step(c.elapsed) // a replica started later starts at the cluster's time
	cfg := leaderelection.Config{
		Member: lease.Member{Client: c.srv.Client(c.t, clock.Fake), Namespace: ns, Identity: id, Clock: clock},
		Name:   name,
	}
	for _, f := range change {
		f(&cfg)
	}
	e, err := leaderelection.New(cfg)
	if err != nil {
		c.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &replica{id: id, clock: clock, e: e, cancel: cancel, done: make(chan error, 1)}
	c.replicas = append(c.replicas, r)
	go func() { r.done <- e.Run(ctx, c.work(r), func() { r.stopped.Store(true) }) }()
	c.settle()
	return r
}

// work is what a replica runs while it leads: nothing but checking that no other
// replica's work runs at the same time, which is the whole point of the election.
func (c *cluster) work(r *replica) func(context.Context) {
	return func(ctx context.Context) {
		if n := c.working.Add(1); n > 1 {
			// The replica's own clock: c.elapsed belongs to the test's goroutine.
			at := r.clock.Now().Sub(clock.NewFake().Now())
			c.t.Errorf("at +%s %s started leading while %d other replica(s) still work", at, r.id, n-1)
		}
		<-ctx.Done()
		c.working.Add(-1)
		r.workEnded.Store(true)
	}
}

// settle waits until every running replica is idle in a wait, or has returned
// from Run.
func (c *cluster) settle() {
	for _, r := range c.replicas {
		if r.parked || r.finished {
			continue
		}
		select {
		case <-r.clock.parked:
			r.parked = true
		case r.err = <-r.done:
			r.finished = true
		}
	}
}

// step moves every running replica's clock to the earliest wait's end, and returns
// how far that was.
func (c *cluster) step() time.Duration {
	c.t.Helper()
	c.settle()
	next := make(map[*replica]time.Duration)
	var d time.Duration
	found := false
	for _, r := range c.replicas {
		if r.finished {
			continue
		}
		if n, ok := r.clock.NextDeadline(); ok {
			next[r] = n
			if !found || n < d {
				d, found = n, true
			}
		}
	}
	if !found {
		c.t.Fatalf("at +%s no replica is waiting for anything", c.elapsed)
	}
	for _, r := range c.replicas {
		if r.finished {
			continue
		}
		r.clock.Step(d)
		// Decided from the deadline, not from Waiters after the Step: by then the
		// replica may already have started its next wait.
		if n, ok := next[r]; ok && n <= d {
			r.parked = false // its wait ended: it works until it signals the next one
		}
	}
	c.elapsed += d
	c.settle()
	return d
}

// runUntil steps until cond holds, and returns the time that took; it fails the
// test if limit passes first.
func (c *cluster) runUntil(what string, limit time.Duration, cond func() bool) time.Duration {
	c.t.Helper()
	c.settle()
	start := c.elapsed
	for !cond() {
		if c.elapsed-start > limit {
			c.t.Fatalf("after %s: still not %s", c.elapsed-start, what)
		}
		c.step()
	}
	return c.elapsed - start
}

// runFor steps for d (or a little more: up to the end of the wait that crosses it),
// checking check after every step.
func (c *cluster) runFor(d time.Duration, check func()) {
	c.t.Helper()
	c.settle()
	for end := c.elapsed + d; c.elapsed < end; {
		c.step()
		check()
	}
}

// stop cancels a replica's ctx and waits for its Run to return.
func (c *cluster) stop(r *replica) error {
	c.t.Helper()
	r.cancel()
	if !r.finished {
		for {
			select {
			case <-r.clock.parked: // it began a wait just as it was cancelled
				continue
			case r.err = <-r.done:
			}
			break
		}
		r.finished = true
	}
	return r.err
}

// lease returns the stored Lease.
func (c *cluster) lease() lease.Lease {
	c.t.Helper()
	l, ok := c.srv.Lease(ns, name)
	if !ok {
		c.t.Fatal("no Lease stored")
	}
	return l
}

// since returns t as an offset from the fake clocks' start.
func since(t *lease.MicroTime) time.Duration {
	if t == nil {
		return -1
	}
	return t.Sub(clock.NewFake().Now())
}

// leaders returns the replicas that say they lead.
func (c *cluster) leaders() []string {
	var ids []string
	for _, r := range c.replicas {
		if r.e.IsLeader() {
			ids = append(ids, r.id)
		}
	}
	return ids
}

// names collects OnNewLeader's calls, safely from the elector's goroutine.
type names struct {
	mu   sync.Mutex
	list []string
}

func (n *names) add(s string) { n.mu.Lock(); n.list = append(n.list, s); n.mu.Unlock() }
func (n *names) get() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.list...)
}

// apiclientMeta is the metadata of the test Lease.
func apiclientMeta() apiclient.ObjectMeta { return apiclient.ObjectMeta{Namespace: ns, Name: name} }

// isRelease reports whether r writes a Lease with no holder, leaving r's body
// readable again.
func isRelease(t *testing.T, r *http.Request) bool {
	t.Helper()
	return writesHolder(t, r, "")
}

// writesHolder reports whether r writes a Lease naming holder, leaving r's body
// readable again.
func writesHolder(t *testing.T, r *http.Request, holder string) bool {
	t.Helper()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		t.Error(err)
		return false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	var l lease.Lease
	if err := json.Unmarshal(body, &l); err != nil {
		t.Error(err)
		return false
	}
	return l.Spec.HolderIdentity == holder
}
