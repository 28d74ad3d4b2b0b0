// Package informertest drives an informer from a test, with no API server: a Script
// stands where the Reflector would and writes what the test says into the FIFO, and
// a Recorder is a handler that writes one line per call.
//
// It imports package testing, so only test files may import it (main_test.go
// checks).
package informertest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/fifo"
)

// Script is a stand-in for the Reflector: the test writes into Sink, the informer's
// FIFO, from its own goroutine, and Run only waits. Pass Source as the Options'
// Source.
type Script struct {
	Sink fifo.Sink[*apiclient.Object]
}

// Source keeps the FIFO the informer hands over, and returns the Script as the
// informer's Runner.
func (s *Script) Source(sink fifo.Sink[*apiclient.Object]) informer.Runner {
	s.Sink = sink
	return s
}

// Run waits until ctx is done.
func (s *Script) Run(ctx context.Context) error { <-ctx.Done(); return nil }

// New builds an informer fed by a Script. The informer runs once start is called,
// until the test ends; a Run error fails the test.
func New(t testing.TB, opts informer.Options) (inf *informer.Informer, s *Script, start func()) {
	t.Helper()
	s = &Script{}
	opts.Source = s.Source
	inf = informer.New(opts)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	start = func() { go func() { done <- inf.Run(ctx) }() }
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

// Pod is a pod named default/name at resourceVersion rv, and nothing else.
func Pod(name, rv string) *apiclient.Object {
	o, err := apiclient.DecodeObject([]byte(fmt.Sprintf(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":%q,"namespace":"default","resourceVersion":%q}}`, name, rv)))
	if err != nil {
		panic(err)
	}
	return o
}

// Recorder is a Handler that writes one line per call ("add default/a rv=1
// initial=true"). With Gate set, each call first waits for a send on Gate, so a test
// can hold the handler back. Build it with NewRecorder; safe for concurrent use.
type Recorder struct {
	Gate chan struct{}

	seen chan string // every line goes here, for Next
}

// NewRecorder returns a Recorder that can hold 1000 lines nobody has read with Next.
func NewRecorder() *Recorder { return &Recorder{seen: make(chan string, 1000)} }

// OnAdd records "add KEY rv=RV initial=BOOL".
func (r *Recorder) OnAdd(o *apiclient.Object, initial bool) {
	r.log(fmt.Sprintf("add %s rv=%s initial=%v", o.Key(), o.Metadata.ResourceVersion, initial))
}

// OnUpdate records "update KEY rv=OLD→NEW".
func (r *Recorder) OnUpdate(old, o *apiclient.Object) {
	r.log(fmt.Sprintf("update %s rv=%s→%s", o.Key(), old.Metadata.ResourceVersion, o.Metadata.ResourceVersion))
}

// OnDelete records "delete KEY rv=RV finalStateUnknown=BOOL".
func (r *Recorder) OnDelete(o *apiclient.Object, unknown bool) {
	r.log(fmt.Sprintf("delete %s rv=%s finalStateUnknown=%v", o.Key(), o.Metadata.ResourceVersion, unknown))
}

// Next waits for n more lines and returns them joined by "\n".
func (r *Recorder) Next(n int) string {
	var got []string
	for i := 0; i < n; i++ {
		got = append(got, <-r.seen)
	}
	return strings.Join(got, "\n")
}

func (r *Recorder) log(line string) {
	if r.Gate != nil {
		<-r.Gate
	}
	r.seen <- line
}
