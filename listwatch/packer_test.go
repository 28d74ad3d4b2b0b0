package listwatch_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/listwatch"
)

// packingSink packs against a dictionary of the first pod, and records, at
// Replace, which of the listed objects were packed already.
type packingSink struct {
	mu       sync.Mutex
	dict     *apiclient.Dictionary
	packs    int
	unpacked []string
	replaced chan struct{}
}

func (s *packingSink) Pack(o *apiclient.Object) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dict == nil {
		s.dict = apiclient.NewDictionary(o)
	}
	s.packs++
	o.Pack(s.dict)
}
func (s *packingSink) Add(*apiclient.Object) error    { return nil }
func (s *packingSink) Update(*apiclient.Object) error { return nil }
func (s *packingSink) Delete(*apiclient.Object) error { return nil }
func (s *packingSink) Replace(list []*apiclient.Object, _ string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, o := range list {
		if i > 0 && !o.Packed() { // the first is the dictionary, whole
			s.unpacked = append(s.unpacked, o.Key())
		}
	}
	close(s.replaced)
	return nil
}

// A Sink that is a Packer is handed each object of a list as it is decoded,
// so the list reaches Replace packed: its bytes were never all alive
// unpacked together.
func TestReflector_a_Packer_sink_gets_a_list_packed_as_it_was_decoded(t *testing.T) {
	pod, err := os.ReadFile("../apiclient/testdata/pod.json")
	if err != nil {
		t.Fatal(err)
	}
	srv := apitest.NewServer(nil)
	defer srv.Close()
	for i := range 5 {
		p := strings.Replace(string(pod), `"name":"load-000001"`, fmt.Sprintf(`"name":"load-%06d"`, i), 1)
		p = strings.Replace(p, `"namespace":"bench-sample"`, `"namespace":"default"`, 1)
		p = strings.Replace(p, `"uid":"7e7bdf72-7a61-4581-8f59-111e14331b7c",`, "", 1)
		p = strings.Replace(p, `"resourceVersion":"571",`, "", 1)
		if _, err := srv.Add(apiclient.Pods, p); err != nil {
			t.Fatal(err)
		}
	}
	c, err := srv.Client(apiclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sink := &packingSink{replaced: make(chan struct{})}
	r := listwatch.New(c.Resource(apiclient.Pods).Namespace("default"), sink, listwatch.Options{Logger: discard})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	<-sink.replaced
	cancel()
	<-done
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if got, want := sink.packs, 5; got != want {
		t.Fatalf("Pack called %d times for a list of %d", got, want)
	}
	if len(sink.unpacked) > 0 {
		t.Fatalf("Replace was given %v unpacked", sink.unpacked)
	}
}

// countingPacker is a chanSink that is a Packer: it counts the objects it is
// given to pack, from any goroutine.
type countingPacker struct {
	*chanSink
	mu     sync.Mutex
	packed map[string]bool
}

func (s *countingPacker) Pack(o *apiclient.Object) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.packed[o.Key()] = true
}

// A split list's parts are decoded on goroutines of their own: each hands
// what it decodes to the Packer as a list read whole does.
func TestReflector_a_split_list_is_packed_as_it_is_decoded(t *testing.T) {
	defer listwatch.SplitFrom(2)()
	srv := newSplitServer(t, true, false, false)
	sink := &countingPacker{chanSink: &chanSink{calls: make(chan string, 16)}, packed: map[string]bool{}}
	var split atomic.Bool
	r := listwatch.New(srv.client.Resource(apiclient.Pods).Namespace("ns-1"), sink, listwatch.Options{
		Split: 4, Logger: discard,
		OnStep: func(s listwatch.Step) {
			if s.Op == listwatch.OpSplit {
				split.Store(true)
			}
		},
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	replace := <-sink.calls
	cancel()
	<-done
	if !split.Load() {
		t.Fatalf("the list was not split: %q", srv.seen())
	}
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if got, want := len(sink.packed), 10; got != want || !strings.HasPrefix(replace, "REPLACE") {
		t.Fatalf("%d objects of a split list of %d handed to Pack (the sink was told %s)", got, want, replace)
	}
}
