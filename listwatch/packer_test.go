package listwatch_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
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
