package informer_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/controller/informer"
)

// marking is a Transform that labels a copy of each object seen=yes, counting its
// calls, and a handler that writes one line per call saying whether the object it
// got carries the label.
type marking struct {
	calls atomic.Int32
	lines chan string
}

func newMarking() *marking { return &marking{lines: make(chan string, 100)} }

func (m *marking) transform(o *apiclient.Object) (*apiclient.Object, error) {
	m.calls.Add(1)
	c := o.Copy()
	c.Metadata.Labels = map[string]string{"seen": "yes"}
	return c, nil
}

func (m *marking) handler() informer.Handler {
	line := func(verb string, o *apiclient.Object) {
		m.lines <- fmt.Sprintf("%s %s seen=%s", verb, o.Metadata.Name, o.Metadata.Labels["seen"])
	}
	return informer.HandlerFuncs{
		AddFunc:    func(o *apiclient.Object, _ bool) { line("add", o) },
		UpdateFunc: func(_, o *apiclient.Object) { line("update", o) },
		DeleteFunc: func(o *apiclient.Object, _ bool) { line("delete", o) },
	}
}

func (m *marking) next(t *testing.T, want string) {
	t.Helper()
	if got := <-m.lines; got != want {
		t.Fatalf("handler got %q, want %q", got, want)
	}
}

func TestTransform_reaches_a_watch_delete(t *testing.T) {
	m := newMarking()
	inf, src, start := newInformer(t, informer.Options{Transform: m.transform})
	inf.AddHandler("m", m.handler(), 0)
	start()
	must(t, src.Sink.Replace([]*apiclient.Object{pod("a", "1")}, "1"))
	m.next(t, "add a seen=yes")
	must(t, src.Sink.Delete(pod("a", "2")))
	m.next(t, "delete a seen=yes")
}

func TestTransform_reaches_every_object_of_a_relist(t *testing.T) {
	m := newMarking()
	inf, src, start := newInformer(t, informer.Options{Transform: m.transform})
	inf.AddHandler("m", m.handler(), 0)
	start()
	must(t, src.Sink.Replace([]*apiclient.Object{pod("a", "1"), pod("b", "2")}, "2"))
	m.next(t, "add a seen=yes")
	m.next(t, "add b seen=yes")
	// The relist changed a and lost b: the delete (of the cached object) and the
	// update both carry the label. (The in-order FIFO queues the deletions first.)
	must(t, src.Sink.Replace([]*apiclient.Object{pod("a", "3")}, "3"))
	m.next(t, "delete b seen=yes")
	m.next(t, "update a seen=yes")
	if got, want := m.calls.Load(), int32(3); got != want {
		t.Fatalf("Transform called %d times, want %d (once per object listed)", got, want)
	}
}

func TestTransform_runs_once_per_object_not_again_on_resync(t *testing.T) {
	m := newMarking()
	clock := clock.NewFake()
	inf, src, start := newInformer(t, informer.Options{Transform: m.transform, Clock: clock})
	inf.AddHandler("m", m.handler(), time.Minute)
	start()
	must(t, src.Sink.Replace([]*apiclient.Object{pod("a", "1")}, "1"))
	m.next(t, "add a seen=yes")
	clock.BlockUntilWaiters(1)
	clock.Step(time.Minute)
	m.next(t, "update a seen=yes")
	if got, want := m.calls.Load(), int32(1); got != want {
		t.Fatalf("Transform called %d times, want %d: a resync replays the cached, transformed object", got, want)
	}
}

func TestTransform_failing_on_a_list_leaves_the_informer_unsynced(t *testing.T) {
	inf, src, start := newInformer(t, informer.Options{Transform: func(o *apiclient.Object) (*apiclient.Object, error) {
		if o.Metadata.Name == "bad" {
			return nil, errors.New("cannot")
		}
		return o, nil
	}})
	start()
	if err := src.Sink.Replace([]*apiclient.Object{pod("a", "1"), pod("bad", "2")}, "2"); err == nil {
		t.Fatal("Replace accepted a list whose Transform failed")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if inf.WaitForCacheSync(ctx) || inf.Len() != 0 {
		t.Fatalf("synced %v with %d objects after a Replace that failed", inf.HasSynced(), inf.Len())
	}
}
