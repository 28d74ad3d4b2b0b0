package informer_test

import (
	"context"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/controller/informer"
)

func TestInformer_tells_handlers_adds_updates_and_deletes_in_order(t *testing.T) {
	for _, inOrder := range []bool{false, true} {
		inf, src, start := newInformer(t, informer.Options{DeltaFIFO: !inOrder})
		rec := newRecorder()
		inf.AddHandler("rec", rec, 0)
		start()
		must(t, src.Sink.Replace([]*apiclient.Object{pod("a", "1"), pod("b", "2")}, "2"))
		if !inf.WaitForCacheSync(context.Background()) {
			t.Fatal("never synced")
		}
		if got, want := rec.Next(2), "add default/a rv=1 initial=true\nadd default/b rv=2 initial=true"; got != want {
			t.Fatalf("inOrder=%v initial list:\n%s\nwant\n%s", inOrder, got, want)
		}
		must(t, src.Sink.Update(pod("a", "3")))
		must(t, src.Sink.Delete(pod("b", "4")))
		must(t, src.Sink.Add(pod("c", "5")))
		want := "update default/a rv=1→3\ndelete default/b rv=4 finalStateUnknown=false\nadd default/c rv=5 initial=false"
		if got := rec.Next(3); got != want {
			t.Fatalf("inOrder=%v watch events:\n%s\nwant\n%s", inOrder, got, want)
		}
		if o, err := inf.Get("default", "a"); err != nil || o.Metadata.ResourceVersion != "3" || inf.Len() != 2 {
			t.Fatalf("cache: a=%v len=%d", o, inf.Len())
		}
	}
}

func TestInformer_relist_turns_vanished_objects_into_unknown_final_state_deletes(t *testing.T) {
	inf, src, start := newInformer(t, informer.Options{})
	rec := newRecorder()
	inf.AddHandler("rec", rec, 0)
	start()
	must(t, src.Sink.Replace([]*apiclient.Object{pod("a", "1"), pod("b", "2")}, "2"))
	rec.Next(2)
	// The watch broke; b was deleted meanwhile; the relist does not list it.
	must(t, src.Sink.Replace([]*apiclient.Object{pod("a", "1")}, "9"))
	if got, want := rec.Next(1), "delete default/b rv=2 finalStateUnknown=true"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	// a was re-listed unchanged: that is no update for a handler without resync.
	must(t, src.Sink.Add(pod("z", "10")))
	if got, want := rec.Next(1), "add default/z rv=10 initial=false"; got != want {
		t.Fatalf("after relist: got %q, want %q (an unchanged relisted object is not an update)", got, want)
	}
}

func TestInformer_synced_waits_for_every_handler(t *testing.T) {
	inf, src, start := newInformer(t, informer.Options{})
	slow := newRecorder()
	slow.Gate = make(chan struct{})
	reg := inf.AddHandler("slow", slow, 0)
	start()
	must(t, src.Sink.Replace([]*apiclient.Object{pod("a", "1"), pod("b", "2")}, "2"))
	slow.Gate <- struct{}{} // let the first add through
	slow.Next(1)
	if inf.HasSynced() || reg.HasSynced() {
		t.Fatal("synced while a handler has not been given the whole initial list")
	}
	slow.Gate <- struct{}{}
	slow.Next(1)
	if !inf.WaitForCacheSync(context.Background()) || !reg.HasSynced() {
		t.Fatal("not synced after the handler had the list")
	}
}

func TestInformer_empty_initial_list_syncs(t *testing.T) {
	inf, src, start := newInformer(t, informer.Options{})
	inf.AddHandler("", newRecorder(), 0)
	start()
	must(t, src.Sink.Replace(nil, "7"))
	if !inf.WaitForCacheSync(context.Background()) {
		t.Fatal("an empty first LIST never synced")
	}
}

func TestInformer_slow_handler_does_not_hold_back_a_fast_one(t *testing.T) {
	inf, src, start := newInformer(t, informer.Options{})
	slow, fast := newRecorder(), newRecorder()
	slow.Gate = make(chan struct{}) // never opened until the end
	slowReg := inf.AddHandler("slow", slow, 0)
	inf.AddHandler("fast", fast, 0)
	start()
	must(t, src.Sink.Replace(nil, "1"))
	for i := 0; i < 100; i++ {
		must(t, src.Sink.Add(pod("p"+string(rune('a'+i%26))+string(rune('a'+i/26)), "2")))
	}
	fast.Next(100) // all 100 reached the fast handler while the slow one holds its first
	if got := slowReg.Backlog(); got < 99 {
		t.Fatalf("slow handler backlog %d, want ≥ 99 waiting, none lost", got)
	}
	close(slow.Gate)
	slow.Next(100)
}

func TestInformer_late_handler_first_gets_the_cache(t *testing.T) {
	inf, src, start := newInformer(t, informer.Options{})
	early := newRecorder()
	inf.AddHandler("early", early, 0)
	start()
	must(t, src.Sink.Replace([]*apiclient.Object{pod("a", "1")}, "1"))
	early.Next(1)
	inf.WaitForCacheSync(context.Background())
	late := newRecorder()
	reg := inf.AddHandler("late", late, 0)
	if got, want := late.Next(1), "add default/a rv=1 initial=true"; got != want {
		t.Fatalf("late handler got %q, want %q", got, want)
	}
	if !inf.WaitForCacheSync(context.Background()) || !reg.HasSynced() {
		t.Fatal("late handler never synced")
	}
}

func TestInformer_resync_reaches_only_handlers_that_asked(t *testing.T) {
	clock := clock.NewFake()
	inf, src, start := newInformer(t, informer.Options{Clock: clock})
	resyncing, quiet := newRecorder(), newRecorder()
	inf.AddHandler("resyncing", resyncing, time.Minute)
	inf.AddHandler("quiet", quiet, 0)
	start()
	must(t, src.Sink.Replace([]*apiclient.Object{pod("a", "1")}, "1"))
	resyncing.Next(1)
	quiet.Next(1)
	clock.BlockUntilWaiters(1)
	clock.Step(time.Minute)
	if got, want := resyncing.Next(1), "update default/a rv=1→1"; got != want {
		t.Fatalf("resync: got %q, want %q", got, want)
	}
	must(t, src.Sink.Add(pod("b", "2")))
	if got := quiet.Next(1); got != "add default/b rv=2 initial=false" {
		t.Fatalf("the quiet handler got %q: the resync reached it", got)
	}
}

// A handler that asks for a resync after Run gets it, though no handler asked
// for one before (the resync loop used to look at the handlers once, at Run).
func TestInformer_resync_reaches_a_handler_added_after_Run(t *testing.T) {
	clock := clock.NewFake()
	inf, src, start := newInformer(t, informer.Options{Clock: clock})
	start()
	must(t, src.Sink.Replace([]*apiclient.Object{pod("a", "1")}, "1"))
	inf.WaitForCacheSync(context.Background())
	late := newRecorder()
	inf.AddHandler("late", late, time.Minute)
	if got, want := late.Next(1), "add default/a rv=1 initial=true"; got != want {
		t.Fatalf("late handler got %q, want %q", got, want)
	}
	clock.BlockUntilWaiters(1)
	clock.Step(time.Minute)
	if got, want := late.Next(1), "update default/a rv=1→1"; got != want {
		t.Fatalf("resync of the late handler: got %q, want %q", got, want)
	}
}

func TestInformer_transform_runs_before_caching(t *testing.T) {
	inf, src, start := newInformer(t, informer.Options{Transform: func(o *apiclient.Object) (*apiclient.Object, error) {
		c := o.Copy()
		c.Metadata.Labels = map[string]string{"seen": "yes"}
		return c, nil
	}})
	start()
	must(t, src.Sink.Replace([]*apiclient.Object{pod("a", "1")}, "1"))
	inf.WaitForCacheSync(context.Background())
	if o, _ := inf.Get("default", "a"); o.Metadata.Labels["seen"] != "yes" {
		t.Fatalf("cached %v without the transform", o.Metadata.Labels)
	}
}

// A handler that changes what it is given changes nothing of the cache: each
// handler gets copies of its own.
func TestInformer_a_handler_cannot_corrupt_the_cache(t *testing.T) {
	inf, src, start := newInformer(t, informer.Options{})
	changed := make(chan struct{}, 2)
	inf.AddHandler("vandal", informer.HandlerFuncs{
		AddFunc: func(o *apiclient.Object, _ bool) {
			o.Metadata.Labels = map[string]string{"vandal": "was here"}
			o.Metadata.ResourceVersion = "999"
			changed <- struct{}{}
		},
		UpdateFunc: func(_, o *apiclient.Object) {
			o.Metadata.Name = "renamed"
			changed <- struct{}{}
		},
	}, 0)
	start()
	must(t, src.Sink.Replace([]*apiclient.Object{pod("a", "1")}, "1"))
	<-changed
	must(t, src.Sink.Update(pod("a", "2")))
	<-changed
	o, err := inf.Get("default", "a")
	if err != nil {
		t.Fatal(err)
	}
	if o.Metadata.Labels["vandal"] != "" || o.Metadata.ResourceVersion != "2" || o.Metadata.Name != "a" {
		t.Fatalf("the cache shows what a handler did to its objects: %+v", o.Metadata)
	}
}
