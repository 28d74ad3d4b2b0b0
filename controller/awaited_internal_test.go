package controller

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/controller/informer/informertest"
)

// /readyz's detail names the writes awaited, the oldest three, each value from
// the server quoted: a name or a version with control characters in it
// reaches no terminal raw.
func TestWithAwaited(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC)
	at := func(ago time.Duration) time.Time { return now.Add(-ago) }
	hostile := &write{resource: "pods", namespace: "demo", name: "web\x1b[2J\nok", shows: informer.Written{ResourceVersion: "9\r9"}, at: at(40 * time.Second)}
	gone := &write{resource: "configmaps", namespace: "demo", name: "cfg", shows: informer.Written{Deleted: []informer.Deleted{{Namespace: "demo", Name: "cfg", UID: "u"}}}, at: at(2500 * time.Millisecond)}
	for _, tc := range []struct {
		detail string
		ws     []*write
		want   string
	}{
		{"", nil, ""},
		{"leader", nil, "leader"},
		{"", []*write{hostile}, `awaiting this process's write of pods "demo/web\x1b[2J\nok" at rv "9\r9" for 40s`},
		{"standby", []*write{hostile, gone}, `standby; awaiting this process's write of pods "demo/web\x1b[2J\nok" at rv "9\r9" for 40s; ` +
			`awaiting this process's delete of configmaps "demo/cfg" for 3s`},
		{"", []*write{gone, gone, gone, gone, gone}, strings.Repeat(`awaiting this process's delete of configmaps "demo/cfg" for 3s; `, 3) + "and 2 more writes awaited"},
	} {
		got := withAwaited(tc.detail, tc.ws, now)
		if got != tc.want {
			t.Errorf("withAwaited(%q, %d writes):\n got %q\nwant %q", tc.detail, len(tc.ws), got, tc.want)
		}
		if strings.ContainsAny(got, "\x1b\n\r") {
			t.Errorf("a control character reached the detail: %q", got)
		}
	}
}

// Writes nobody reads do not pile up: each cache's list is swept when it has
// doubled, dropping what the cache shows; one never shown is given up on at a
// sweep StaleWaitLimit after its answer, and reported once.
func TestWrites_sweep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pods, src, start := informertest.New(t, informer.Options{})
		start()
		must(t, src.Sink.Replace(nil, "10"))
		synctest.Wait()
		var reported []*write
		ws := &writes{clock: RealClock{}, report: func(a *awaited) { reported = append(reported, a.write) }}
		ahead := &write{resource: "pods", namespace: "default", name: "x", shows: informer.Written{ResourceVersion: "999999999"}, at: time.Now()}
		ws.show([]*awaited{newAwaited(ahead, pods, true)})
		for range 1000 {
			w := &write{resource: "pods", namespace: "default", name: "y", shows: informer.Written{ResourceVersion: "10"}, at: time.Now()}
			ws.show([]*awaited{newAwaited(w, pods, true)})
		}
		if n := len(ws.awaited[pods].as); n > 64 {
			t.Fatalf("%d records kept for one cache that shows all but one", n)
		}
		time.Sleep(StaleWaitLimit) // synctest: time moves at once
		for range 128 {
			w := &write{resource: "pods", namespace: "default", name: "y", shows: informer.Written{ResourceVersion: "10"}, at: time.Now()}
			ws.show([]*awaited{newAwaited(w, pods, true)})
		}
		if len(reported) != 1 || reported[0] != ahead {
			t.Fatalf("reported %d writes given up on, want the one answered ahead", len(reported))
		}
		if got := ws.awaitedFor(0); len(got) != 0 {
			t.Fatalf("%d writes still awaited", len(got))
		}
		if len(reported) != 1 {
			t.Fatalf("reported %d times", len(reported))
		}
	})
}

// A write is superseded only by a cache that keeps its object for as long as
// it exists, and only once that cache has been seen holding it: a create
// whose event has not arrived is not "gone".
func TestAwaited_superseded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pods, src, start := informertest.New(t, informer.Options{})
		start()
		must(t, src.Sink.Replace(nil, "10"))
		synctest.Wait()
		now := time.Now()
		w := &write{resource: "pods", namespace: "default", name: "x", uid: "u-x", shows: informer.Written{ResourceVersion: "999999999"}, at: now}
		keeps, selected := newAwaited(w, pods, true), newAwaited(w, pods, false)
		check := func(a *awaited, want awaitState) {
			t.Helper()
			if got := a.state(now); got != want {
				t.Fatalf("state %d, want %d", got, want)
			}
		}
		check(keeps, awaiting) // not cached yet: the create's event is on its way
		x := informertest.Pod("x", "11")
		x.Metadata.UID = "u-x"
		must(t, src.Sink.Add(x))
		synctest.Wait()
		check(keeps, awaiting) // cached at 11: not the answer's 999999999
		check(selected, awaiting)
		must(t, src.Sink.Delete(informertest.Pod("x", "12")))
		synctest.Wait()
		check(keeps, superseded)
		check(selected, awaiting) // it may have left by a change of labels
		if got := selected.state(now.Add(StaleWaitLimit)); got != givenUp {
			t.Fatalf("state %d at the bound, want given up", got)
		}
	})
}
