//go:build unix

package chaos_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/kubeconfig"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/fifo"
	"github.com/kubewire/kubewire/listwatch"
)

const (
	totalOps    = 2000
	convergence = 5 * time.Second // after the last fault
)

// backoff is the Reflector's, shortened. The default (0.8 s doubling to 30 s, reset
// only after two quiet minutes) is right for a real cluster, but after ten restarts
// in a minute it waits up to a minute: "converged within 5 s of the last fault"
// would then time the backoff, not the recovery. Short waits also bring the watch
// back between faults, so that the proxy gets to cut it often.
var backoff = listwatch.Backoff{Initial: 100 * time.Millisecond, Max: 500 * time.Millisecond, ResetAfter: 5 * time.Second}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// TestIntegration_cache_converges_through_restarts_410s_and_cut_streams is the chaos
// run of the package doc: an informer and a controller on pods, through the proxy,
// while the churn writes 2,000 changes straight to the server and the schedule
// restarts the server, pauses the proxy into 410s, and the proxy cuts watches.
func TestIntegration_cache_converges_through_restarts_410s_and_cut_streams(t *testing.T) {
	cl, cfg := startCluster(t)
	direct, directTr := newClient(t, cl.cfg)
	ns := createNamespace(t, direct)
	directTr.CloseIdleConnections()
	baseline := settledGoroutines()

	u, _ := url.Parse(cl.url)
	px := startProxy(t, cl.dir, u.Host, 8)
	viaProxy := *cfg
	viaProxy.Server = px.url
	client, clientTr := newClient(t, &viaProxy)
	steps := &tally{}
	var refl *listwatch.Reflector
	m, err := controller.NewManager(client, controller.ManagerOptions{Namespace: ns, Log: quiet,
		Source: func(key controller.InformerKey, rc apiclient.ResourceClient, sink fifo.Sink[*apiclient.Object]) informer.Runner {
			refl = listwatch.New(rc, sink, listwatch.Options{Name: key.Resource, Backoff: backoff, OnStep: steps.step, Logger: quiet})
			return refl
		}})
	if err != nil {
		t.Fatal(err)
	}
	pods := m.Informer(apiclient.Pods)
	seen := &views{inf: pods, last: map[string]string{}}
	if _, err := controller.New(m, "chaos", controller.Options{Workers: 2}).For(apiclient.Pods).Complete(seen); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ran := make(chan error, 1)
	go func() { ran <- m.Run(ctx) }() // owned by the test: stop waits for it
	stop := sync.OnceFunc(func() {
		cancel()
		if err := <-ran; err != nil {
			t.Errorf("manager: %v", err)
		}
	})
	t.Cleanup(stop)
	syncCtx, syncDone := context.WithTimeout(ctx, 30*time.Second)
	defer syncDone()
	if !pods.WaitForCacheSync(syncCtx) {
		t.Fatalf("the informer did not sync: %+v", refl.Health())
	}

	// The churn, with the faults at their ops.
	px.setCutting(true)
	rc := direct.Resource(apiclient.Pods).Namespace(ns)
	faults := &schedule{t: t, cl: cl, px: px, refl: refl, probe: rc, steps: steps, prev: closed()}
	ch := newChurn(rc, 1, faults.before)
	began := time.Now()
	if err := ch.run(ctx, totalOps); err != nil {
		t.Fatalf("%v\nlast steps:\n%s", err, steps.recentLines())
	}
	<-faults.prev
	px.setCutting(false)
	if faults.err != nil {
		t.Fatalf("fault: %v", faults.err)
	}
	lastFault := faults.lastEnd
	if c := px.lastCutAt(); c.After(lastFault) {
		lastFault = c
	}

	// Converged: the cache and the reconciler agree with what the server lists now.
	final, err := rc.List(ctx, apiclient.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	server := versions(final.Items)
	convergedAt, diffs := waitConverged(server, pods, seen, lastFault.Add(convergence))
	if diffs != nil {
		t.Fatalf("not converged %s after the last fault; %d differences, first:\n%s\nhealth: %+v\nlast steps:\n%s",
			convergence, len(diffs), strings.Join(diffs[:min(len(diffs), 10)], "\n"), refl.Health(), steps.recentLines())
	}
	last, reconciles := seen.snapshot()
	gone := 0
	for key := range last {
		if _, ok := server[key]; !ok {
			gone++
		}
	}
	health := refl.Health()

	// Shutdown: every goroutine the pipeline started is gone.
	stop()
	clientTr.CloseIdleConnections()
	directTr.CloseIdleConnections()
	px.close()
	waitGoroutines(t, baseline)

	// The counts, and what they must at least be for the run to have done its job.
	s := steps.counts()
	if ch.ops() != totalOps || cl.restarts != len(restartAt) {
		t.Errorf("ran %d ops and %d restarts, want %d and %d", ch.ops(), cl.restarts, totalOps, len(restartAt))
	}
	if s.gone < len(pauseAt) || health.Relists < s.gone {
		t.Errorf("%d 410s and %d relists; want at least one 410 per pause (%d), each relisted", s.gone, health.Relists, len(pauseAt))
	}
	if cuts := int(px.cuts.Load()); cuts < 10 || s.broken < cuts {
		t.Errorf("the proxy cut %d watches mid-event and the reflector saw %d streams broken; want ≥ 10 cuts, each seen", cuts, s.broken)
	}
	t.Logf("chaos: %d ops, %d restarts survived (outages %s), %d 410s recovered (%d relists), %d cuts recovered (%d broken streams seen; %d pauses, %s), "+
		"%d objects compared (%d on the server, %d gone), converged in %v after the last fault (%v after the last write); "+
		"%d reconciles, %d churn retries, run took %v",
		ch.ops(), cl.restarts, span(faults.outages), s.gone, health.Relists, px.cuts.Load(), s.broken, px.pauses.Load(), span(faults.pauses),
		len(server)+gone, len(server), gone, convergedAt.Sub(lastFault).Round(time.Millisecond), convergedAt.Sub(ch.lastWrite).Round(time.Millisecond),
		reconciles, ch.retries, time.Since(began).Round(time.Second))
}

// waitConverged polls until diff finds nothing or the deadline passes; it returns
// when it converged, or the differences left at the deadline.
func waitConverged(server map[string]string, inf *informer.Informer, v *views, deadline time.Time) (time.Time, []string) {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		last, _ := v.snapshot()
		diffs := diff(server, versions(inf.List()), last)
		if diffs == nil {
			return time.Now(), nil
		}
		if time.Now().After(deadline) {
			return time.Time{}, diffs
		}
		<-tick.C
	}
}

// tally counts the reflector's steps (its Options.OnStep) and keeps the last few
// lines for a failure report. Safe for concurrent use.
type tally struct {
	mu     sync.Mutex
	c      stepCounts
	recent []string
}

type stepCounts struct {
	gone   int // ERROR steps for a 410: the server no longer had our resourceVersion
	broken int // ERROR steps for a stream that ended in the middle of an event
}

func (y *tally) step(s listwatch.Step) {
	y.mu.Lock()
	defer y.mu.Unlock()
	if s.Op == listwatch.OpError {
		switch {
		case apiclient.IsGone(s.Err):
			y.c.gone++
		case errors.Is(s.Err, io.ErrUnexpectedEOF):
			y.c.broken++
		}
	}
	if s.Op != listwatch.OpItem {
		y.recent = append(y.recent, time.Now().Format("15:04:05.000 ")+s.String())
		if len(y.recent) > 60 {
			y.recent = y.recent[1:]
		}
	}
}

func (y *tally) counts() stepCounts {
	y.mu.Lock()
	defer y.mu.Unlock()
	return y.c
}

func (y *tally) recentLines() string {
	y.mu.Lock()
	defer y.mu.Unlock()
	return strings.Join(y.recent, "\n")
}

// settledGoroutines is the goroutine count once connections just closed have had a
// moment to wind down: the lowest of a few looks.
func settledGoroutines() int {
	n := runtime.NumGoroutine()
	for range 20 {
		runtime.Gosched()
		<-time.After(5 * time.Millisecond)
		n = min(n, runtime.NumGoroutine())
	}
	return n
}

// waitGoroutines waits up to 5 s for the goroutine count to fall back to baseline,
// and fails with every goroutine's stack if it does not.
func waitGoroutines(t *testing.T, baseline int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		n := runtime.NumGoroutine()
		if n <= baseline {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines 5 s after shutdown, %d before start:\n%s", n, baseline, buf[:runtime.Stack(buf, true)])
		}
		runtime.Gosched()
		<-time.After(10 * time.Millisecond)
	}
}

// newClient builds a client with a transport of its own, returned so that the test
// can close its idle connections.
func newClient(t *testing.T, cfg *kubeconfig.Config) (*apiclient.Client, interface{ CloseIdleConnections() }) {
	t.Helper()
	rt, err := cfg.Transport()
	if err != nil {
		t.Fatal(err)
	}
	closer, ok := rt.(interface{ CloseIdleConnections() })
	if !ok {
		t.Fatalf("transport %T cannot close idle connections", rt)
	}
	c, err := apiclient.New(cfg, apiclient.Options{Transport: rt, QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	return c, closer
}

func createNamespace(t *testing.T, c *apiclient.Client) string {
	t.Helper()
	ns := fmt.Sprintf("kubewire-chaos-%d", time.Now().UnixNano()%1e6)
	if _, err := c.Resource(apiclient.Namespaces).Create(context.Background(), []byte(`{"metadata":{"name":"`+ns+`"}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	return ns
}
