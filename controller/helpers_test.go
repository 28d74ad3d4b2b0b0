package controller_test

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/controller/informer/informertest"
	"github.com/kubewire/kubewire/fifo"
)

// The tests feed informers through informertest: a Script stands where the
// Reflector would, and Pod makes the objects.
var (
	newInformer = informertest.New
	pod         = informertest.Pod
	newRecorder = informertest.NewRecorder
)

// quiet keeps the Manager's logs out of the tests' output.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// scripts hands out one Script per informer the Manager builds, so that the test
// writes what each informer's Reflector would have (ManagerOptions.Source).
type scripts struct {
	mu sync.Mutex
	by map[controller.InformerKey]*informertest.Script
}

func newScripts() *scripts { return &scripts{by: map[controller.InformerKey]*informertest.Script{}} }

func (s *scripts) source(key controller.InformerKey, _ apiclient.ResourceClient, sink fifo.Sink[*apiclient.Object]) informer.Runner {
	sc := &informertest.Script{Sink: sink}
	s.mu.Lock()
	s.by[key] = sc
	s.mu.Unlock()
	return sc
}

// of is the Script of the informer of resource (its Resource.String()); the
// informer is built when it is asked for, so it is there once asked for.
func (s *scripts) of(t testing.TB, resource string) *informertest.Script {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for key, sc := range s.by {
		if key.Resource == resource {
			return sc
		}
	}
	t.Fatalf("no informer of %s was built", resource)
	return nil
}

// testManager is a Manager for tests: in namespace "default", on a fake clock,
// quiet, its informers fed by scripts, its writes sent to an API server in
// memory.
type testManager struct {
	*controller.Manager
	clock   *clock.Fake
	scripts *scripts

	cancel context.CancelFunc
	done   chan struct{} // closed when Run has returned, err then set
	err    error
}

// newTestManager builds one with opts, whose zero fields get the defaults above.
func newTestManager(t testing.TB, opts controller.ManagerOptions) *testManager {
	t.Helper()
	tm := &testManager{scripts: newScripts()}
	if opts.Clock == nil {
		tm.clock = clock.NewFake()
		opts.Clock = tm.clock
	} else if c, ok := opts.Clock.(*clock.Fake); ok {
		tm.clock = c
	}
	if opts.Log == nil {
		opts.Log = quiet
	}
	if opts.Namespace == "" {
		opts.Namespace = "default"
	}
	if opts.Source == nil {
		opts.Source = tm.scripts.source
	}
	m, err := controller.NewManager(newClient(t, nil), opts)
	if err != nil {
		t.Fatal(err)
	}
	tm.Manager = m
	return tm
}

// start runs the Manager until stop, or the end of the test.
func (tm *testManager) start(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	tm.cancel, tm.done = cancel, make(chan struct{})
	go func() { // owned by the test: stop waits for it
		tm.err = tm.Run(ctx)
		close(tm.done)
	}()
	t.Cleanup(func() { _ = tm.stop() })
}

// stop cancels Run and returns what it returned.
func (tm *testManager) stop() error {
	tm.cancel()
	<-tm.done
	return tm.err
}

// newClient is a client of an API server in memory (apitest's), closed when the
// test ends, with clock for its waits (nil: the wall clock).
func newClient(t testing.TB, clock apiclient.Clock) *apiclient.Client {
	t.Helper()
	srv := apitest.NewServer(nil)
	srv.CreateNamespaces("ops")
	t.Cleanup(srv.Close)
	c, err := srv.Client(apiclient.Options{Clock: clock})
	must(t, err)
	return c
}

func mustDuration(s string) time.Duration {
	d, err := time.ParseDuration(s)
	if err != nil {
		panic(err)
	}
	return d
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
