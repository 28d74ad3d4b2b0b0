package informer_test

import (
	"testing"
	"testing/synctest"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/listwatch"
)

// StoreResourceVersion says what the store has caught up to: a list's version once
// its last object is in (not its newest object's), every watch event's, every
// bookmark's — and a relist's older objects do not move it back.
func TestInformer_store_resource_version_is_what_the_store_has_caught_up_to(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inf, src, start := newInformer(t, informer.Options{})
		start()
		at := func(want, after string) {
			t.Helper()
			synctest.Wait() // the informer has popped everything written
			if got := inf.StoreResourceVersion(); got != want {
				t.Fatalf("after %s: StoreResourceVersion() = %q, want %q", after, got, want)
			}
		}
		at("", "nothing")
		must(t, src.Sink.Replace([]*apiclient.Object{pod("a", "3"), pod("b", "5")}, "9"))
		at("9", "a list at 9")
		must(t, src.Sink.Update(pod("a", "11")))
		at("11", "an update at 11")
		must(t, src.Sink.(listwatch.Bookmarker).Bookmark("15"))
		at("15", "a bookmark at 15")
		must(t, src.Sink.Replace([]*apiclient.Object{pod("a", "11")}, "20"))
		at("20", "a relist at 20 that no longer lists b")
		must(t, src.Sink.Delete(pod("a", "21")))
		at("21", "a delete at 21")
		// One observation per pop: a and b listed and the list's bookmark, the
		// update, the bookmark, b's made-up delete, a relisted and that list's
		// bookmark, the delete.
		if h := inf.ProcessingSeconds(); h.Count != 9 {
			t.Fatalf("the processing histogram counts %d pops, want 9", h.Count)
		}
	})
}

// DeltaFIFO keeps no order across keys, so it has no place for bookmarks: the
// version moves with watch events only, as client-go's DeltaFIFO.
func TestInformer_store_resource_version_with_DeltaFIFO_follows_watch_events(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inf, src, start := newInformer(t, informer.Options{DeltaFIFO: true})
		start()
		must(t, src.Sink.Replace([]*apiclient.Object{pod("a", "3")}, "9"))
		must(t, src.Sink.(listwatch.Bookmarker).Bookmark("15"))
		synctest.Wait()
		if got := inf.StoreResourceVersion(); got != "" {
			t.Fatalf("after a list and a bookmark: %q, want \"\"", got)
		}
		must(t, src.Sink.Update(pod("a", "16")))
		synctest.Wait()
		if got := inf.StoreResourceVersion(); got != "16" {
			t.Fatalf("after an update at 16: %q, want 16", got)
		}
	})
}

// An object the informer hands back through Held is its own, transformed and
// shared already: a relist that lists it unchanged keeps that very object and
// does not transform it again (a write to it would race its readers).
func TestInformer_a_relist_keeps_the_cached_object_it_held(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		transforms := 0
		inf, src, start := newInformer(t, informer.Options{Transform: func(o *apiclient.Object) (*apiclient.Object, error) {
			transforms++
			return o, nil
		}})
		start()
		must(t, src.Sink.Replace([]*apiclient.Object{pod("a", "3"), pod("b", "5")}, "9"))
		synctest.Wait()
		cached, _ := inf.Cached("default", "a")
		h := src.Sink.(listwatch.Holder)
		if _, ok := h.Held(pod("b", "4")); ok {
			t.Fatal("Held b at 4, but the cache has b at 5")
		}
		a, ok := h.Held(pod("a", "3"))
		if !ok || a != cached {
			t.Fatalf("Held(a at 3) = %p %v, want the cached %p", a, ok, cached)
		}
		transforms = 0
		must(t, src.Sink.Replace([]*apiclient.Object{a, pod("b", "6")}, "12"))
		synctest.Wait()
		if transforms != 1 {
			t.Fatalf("the relist transformed %d objects, want 1 (b, which changed)", transforms)
		}
		if now, _ := inf.Cached("default", "a"); now != cached {
			t.Fatal("the relist replaced the cached a with another copy")
		}
	})
}
