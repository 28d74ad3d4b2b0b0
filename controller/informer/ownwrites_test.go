package informer_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/informer"
)

// Observed compares resourceVersions as integers, and says when it cannot.
func TestInformer_Observed_compares_integers_and_says_when_it_cannot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inf, src, start := newInformer(t, informer.Options{})
		start()
		check := func(rv string, wantSeen, wantComparable bool) {
			t.Helper()
			if seen, comparable := inf.Observed(rv); seen != wantSeen || comparable != wantComparable {
				t.Errorf("store at %q, Observed(%q) = %v, %v; want %v, %v", inf.StoreResourceVersion(), rv, seen, comparable, wantSeen, wantComparable)
			}
		}
		check("5", false, true) // nothing listed yet
		must(t, src.Sink.Replace([]*apiclient.Object{pod("a", "3")}, "9"))
		synctest.Wait()
		check("5", true, true)
		check("9", true, true)
		check("10", false, true)
		check("opaque", false, false)
		must(t, src.Sink.Update(pod("a", "x7")))
		synctest.Wait()
		check("5", false, false) // a server whose versions are not integers
	})
}

// WaitForOwnWrites waits for what OwnWrites names — a version reached, deleted
// objects gone — bounded by its context; with nothing written, or no OwnWrites
// at all, it returns at once.
func TestInformer_WaitForOwnWrites_waits_for_the_cache_to_show_the_writes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var wrote informer.Written
		inf, src, start := newInformer(t, informer.Options{OwnWrites: func(context.Context) (informer.Awaited, error) {
			return func() (informer.Written, time.Time) { return wrote, time.Time{} }, nil
		}})
		start()
		a := pod("a", "3")
		a.Metadata.UID = "u-a"
		must(t, src.Sink.Replace([]*apiclient.Object{a}, "9"))
		synctest.Wait()
		lister := informer.NewLister[struct{}](inf)
		must(t, lister.WaitForOwnWrites(t.Context())) // nothing written

		waits := func(until func()) {
			t.Helper()
			done := make(chan error, 1)
			go func() { done <- lister.WaitForOwnWrites(t.Context()) }()
			synctest.Wait()
			select {
			case err := <-done:
				t.Fatalf("returned before the cache showed %s: %v", wrote, err)
			default:
			}
			until()
			must(t, <-done)
		}
		wrote = informer.Written{ResourceVersion: "12"}
		waits(func() { must(t, src.Sink.Update(pod("b", "12"))) })

		// A delete answered with a Status: no version, the object's uid. An
		// object of the same name with another uid is not it.
		wrote = informer.Written{Deleted: []informer.Deleted{{Namespace: "default", Name: "a", UID: "u-a"}}}
		waits(func() {
			a2 := pod("a", "13")
			a2.Metadata.UID = "u-a2"
			must(t, src.Sink.Delete(pod("a", "13")))
			must(t, src.Sink.Add(a2))
		})

		wrote = informer.Written{ResourceVersion: "20"}
		ctx, cancel := context.WithCancelCause(t.Context())
		cancel(errors.New("the reconcile gave up"))
		err := inf.WaitForOwnWrites(ctx)
		if err == nil || !strings.Contains(err.Error(), `at resourceVersion "13", does not show this process's own writes yet (rv 20)`) || !strings.Contains(err.Error(), "the reconcile gave up") {
			t.Fatalf("cancelled wait: %v", err)
		}

		plain, _, _ := newInformer(t, informer.Options{})
		must(t, plain.WaitForOwnWrites(ctx))
	})
}

// UIDOf reads a cached object's uid without copying it.
func TestInformer_UIDOf(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inf, src, start := newInformer(t, informer.Options{})
		start()
		p := pod("a", "3")
		p.Metadata.UID = "u-1"
		must(t, src.Sink.Replace([]*apiclient.Object{p}, "9"))
		synctest.Wait()
		if uid, ok := inf.UIDOf("default", "a"); uid != "u-1" || !ok {
			t.Fatalf("UIDOf(a) = %q, %v", uid, ok)
		}
		if _, ok := inf.UIDOf("default", "b"); ok {
			t.Fatal("UIDOf(b): found")
		}
	})
}
