package controller_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/fifo"
	"github.com/kubewire/kubewire/queue/queuetest"
)

// script is a stand-in for the Reflector: it writes what the test tells it into the
// informer's FIFO, from the test's goroutine, and its Run just waits.
type script struct {
	sink fifo.Sink[*apiclient.Object]
}

func (s *script) Run(ctx context.Context) error { <-ctx.Done(); return nil }

func pod(name, rv string) *apiclient.Object {
	o, err := apiclient.DecodeObject([]byte(fmt.Sprintf(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":%q,"namespace":"default","resourceVersion":%q}}`, name, rv)))
	if err != nil {
		panic(err)
	}
	return o
}

// newInformer builds an informer fed by a script and runs it until the test ends.
func newInformer(t *testing.T, opts controller.InformerOptions) (*controller.Informer, *script, func()) {
	t.Helper()
	s := &script{}
	opts.Source = func(sink fifo.Sink[*apiclient.Object]) controller.Runner { s.sink = sink; return s }
	inf := controller.NewInformer(opts)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	start := func() { go func() { done <- inf.Run(ctx) }() }
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		default:
		}
	})
	return inf, s, start
}

// recorder is a Handler that writes one line per call, and can be made to block.
type recorder struct {
	mu    sync.Mutex
	lines []string
	gate  chan struct{} // if set, each call waits for a receive... a send on it
	seen  chan string   // every line is also sent here
}

func newRecorder() *recorder { return &recorder{seen: make(chan string, 1000)} }

func (r *recorder) log(line string) {
	if r.gate != nil {
		<-r.gate
	}
	r.mu.Lock()
	r.lines = append(r.lines, line)
	r.mu.Unlock()
	r.seen <- line
}

func (r *recorder) OnAdd(o *apiclient.Object, initial bool) {
	r.log(fmt.Sprintf("add %s rv=%s initial=%v", o.Key(), o.Metadata.ResourceVersion, initial))
}
func (r *recorder) OnUpdate(old, o *apiclient.Object) {
	r.log(fmt.Sprintf("update %s rv=%s→%s", o.Key(), old.Metadata.ResourceVersion, o.Metadata.ResourceVersion))
}
func (r *recorder) OnDelete(o *apiclient.Object, unknown bool) {
	r.log(fmt.Sprintf("delete %s rv=%s finalStateUnknown=%v", o.Key(), o.Metadata.ResourceVersion, unknown))
}

// next waits for n more lines and returns them joined by "\n".
func (r *recorder) next(n int) string {
	var got []string
	for i := 0; i < n; i++ {
		got = append(got, <-r.seen)
	}
	return strings.Join(got, "\n")
}

func newQueueClock() *queuetest.Clock {
	return queuetest.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
}

func mustDuration(s string) time.Duration {
	d, err := time.ParseDuration(s)
	if err != nil {
		panic(err)
	}
	return d
}
