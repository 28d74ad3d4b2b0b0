package controller

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/controller/informer/informertest"
)

// The guard's record, turn by turn: held back while the cache lags the write;
// dropped for an object gone or of another uid; kept for one that was not
// cached when written; a delete's Status awaited by uid.
func TestStaleGuard_check(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pods, src, start := informertest.New(t, informer.Options{})
		start()
		x := informertest.Pod("x", "2")
		x.Metadata.UID = "u-x"
		must(t, src.Sink.Replace([]*apiclient.Object{x}, "2"))
		synctest.Wait()
		g := newStaleGuard(RealClock{}, nil)
		req := Request{Namespace: "default", Name: "web"}
		caches := []*informer.Informer{pods}
		turn := func(uid string, cached, wantStale bool) {
			t.Helper()
			if _, stale, _ := g.check(req, uid, cached); stale != wantStale {
				t.Fatalf("check(%q, %v): stale %v, want %v", uid, cached, stale, wantStale)
			}
		}

		g.wrote(req, "u-1", awaitedIn(caches, informer.Written{ResourceVersion: "3"}))
		turn("u-1", true, true)
		turn("u-2", true, false) // recreated: another object, its predecessor's writes dropped
		turn("u-1", true, false) // nothing left of them

		g.wrote(req, "u-1", awaitedIn(caches, informer.Written{ResourceVersion: "3"}))
		turn("", false, false) // gone from the cache: dropped

		g.wrote(req, "", awaitedIn(caches, informer.Written{ResourceVersion: "3"}))
		turn("u-1", true, true) // written while not cached: kept, whatever is cached now
		must(t, src.Sink.Update(informertest.Pod("y", "3")))
		synctest.Wait()
		turn("u-1", true, false) // the cache shows rv 3

		g.wrote(req, "u-1", awaitedIn(caches, informer.Written{Deleted: []informer.Deleted{{Namespace: "default", Name: "x", UID: "u-x"}}}))
		l, stale, _ := g.check(req, "u-1", true)
		if !stale || l.wrote.String() != "default/x gone" || l.cache != pods || l.again != staleRetryBase {
			t.Fatalf("a delete's Status: lag %+v, stale %v", l, stale)
		}
		turn("u-1", true, true)
		x2 := informertest.Pod("x", "4") // x again, another object
		x2.Metadata.UID = "u-x2"
		must(t, src.Sink.Delete(x))
		must(t, src.Sink.Add(x2))
		synctest.Wait()
		turn("u-1", true, false)
	})
}

// Each skip in a row doubles the wait, from 5 ms to at most 1 s; past
// StaleWaitLimit from the first, the guard gives up.
func TestStaleGuard_backs_off_then_gives_up(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pods, src, start := informertest.New(t, informer.Options{})
		start()
		must(t, src.Sink.Replace(nil, "2"))
		synctest.Wait()
		g := newStaleGuard(RealClock{}, nil) // synctest's fake time
		req := Request{Namespace: "default", Name: "web"}
		g.wrote(req, "u-1", awaitedIn([]*informer.Informer{pods}, informer.Written{ResourceVersion: "3"}))
		var waits []time.Duration
		var waited time.Duration
		for {
			l, stale, gaveUp := g.check(req, "u-1", true)
			if gaveUp {
				break
			}
			if !stale {
				t.Fatal("let through while the cache lags")
			}
			waits = append(waits, l.again)
			waited += l.again
			time.Sleep(l.again) // synctest: time moves at once
		}
		want := []time.Duration{5, 10, 20, 40, 80, 160, 320, 640}
		for i, w := range want {
			if waits[i] != w*time.Millisecond {
				t.Fatalf("waits %v, want %v ms then 1 s", waits[:len(want)], want)
			}
		}
		if last := waits[len(waits)-1]; last != time.Second {
			t.Fatalf("the waits grow to %s, want at most 1 s", last)
		}
		if waited < StaleWaitLimit || waited > StaleWaitLimit+time.Second {
			t.Fatalf("gave up after %s, want %s", waited, StaleWaitLimit)
		}
		if _, stale, _ := g.check(req, "u-1", true); stale {
			t.Fatal("after giving up, the record is not dropped")
		}
	})
}

// A write answered at a version that is not an integer (a server whose
// versions are opaque) tells nothing to wait for; a delete's Status still
// names its object by uid.
func TestWrittenBy_opaque_versions_and_Statuses(t *testing.T) {
	w := apiclient.WriteInfo{Verb: "PATCH", Resource: apiclient.Pods, Namespace: "default", Name: "x"}
	for _, tc := range []struct {
		verb, answer, want string
	}{
		{"PATCH", `{"metadata":{"name":"x","resourceVersion":"15"}}`, "rv 15"},
		{"PATCH", `{"metadata":{"name":"x","resourceVersion":"opaque-15"}}`, "nothing"},
		{"DELETE", `{"kind":"Status","status":"Success","details":{"name":"x","uid":"u-x"}}`, "default/x gone"},
		{"DELETE", `{"kind":"Status","status":"Success"}`, "nothing"},
		{"PATCH", `{"kind":"Status","status":"Success","details":{"uid":"u-x"}}`, "nothing"},
	} {
		answer, err := apiclient.DecodeObject([]byte(tc.answer))
		must(t, err)
		w.Verb = tc.verb
		if got, _ := writtenBy(w, answer); got.String() != tc.want {
			t.Errorf("%s answered %s: %q, want %q", tc.verb, tc.answer, got, tc.want)
		}
	}
}

// awaitedIn is w, answered now (time.Now: synctest's in a bubble), as each of
// caches must show it; a delete's Status names its object.
func awaitedIn(caches []*informer.Informer, w informer.Written) []*awaited {
	wr := &write{resource: "pods", shows: w, at: time.Now()}
	if len(w.Deleted) > 0 {
		wr.namespace, wr.name, wr.uid = w.Deleted[0].Namespace, w.Deleted[0].Name, w.Deleted[0].UID
	}
	as := make([]*awaited, len(caches))
	for i, inf := range caches {
		as[i] = newAwaited(wr, inf, true)
	}
	return as
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// What the guard costs a turn: the uid read from the cache, the record looked
// up (none: nothing written; or one whose write the cache shows), the
// context that carries who reconciles what.
//
//	go test -run '^$' -bench StaleGuard_turn -benchmem ./controller
func BenchmarkStaleGuard_turn(b *testing.B) {
	pods, src, start := informertest.New(b, informer.Options{})
	start()
	web := informertest.Pod("web", "2")
	web.Metadata.UID = "u-web"
	must(b, src.Sink.Replace([]*apiclient.Object{web}, "2"))
	synced, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if !pods.WaitForCacheSync(synced) {
		b.Fatal("never synced")
	}
	m := &Manager{opts: ManagerOptions{Log: slog.New(slog.DiscardHandler), Clock: RealClock{}}}
	c := NewController("pods", ReconcilerFunc(nil), Options{}, m.clock(), m.opts.Log)
	c.primary = pods
	guard := newStaleGuard(m.clock(), nil)
	admit := c.guarded(guard)
	req := Request{Namespace: "default", Name: "web"}
	for _, recorded := range []bool{false, true} {
		b.Run(fmt.Sprintf("recorded=%v", recorded), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if recorded {
					guard.wrote(req, "u-web", awaitedIn([]*informer.Informer{pods}, informer.Written{ResourceVersion: "2"}))
				}
				if a := admit(context.Background(), req); a.verdict != admitNow {
					b.Fatal("skipped")
				}
			}
		})
	}
}
