package sharding_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kubewire/kubewire/controller/sharding"
)

// Issue 29, done when: replicas given one identity (a Deployment with a fixed
// --identity) never serve one range at once. Two, then three replicas named
// "r1" run on a real API server while every object keeps changing; one serves
// everything, the others wait and say why; when the one serving stops, another
// takes over. The ledger shows no object reconciled by two of them at once,
// and no sample of their Status shows two serving.
func TestIntegration_replicas_with_one_identity_never_serve_at_once(t *testing.T) {
	const objects = 60
	g, stopTouching := newGroup(t, "kubewire-twins", objects)

	// serving waits until exactly one replica serves everything and every
	// other says it waits; meanwhile no two may serve at once.
	serving := func(what string) string {
		t.Helper()
		deadline := time.After(30 * time.Second)
		for {
			var who []string
			var union sharding.Set
			waiting := 0
			for id, r := range g.replicas {
				st := r.m.Sharder().Status()
				if union.Overlaps(st.Serving) {
					t.Fatalf("%s: two replicas named r1 serve at once (%s among them: %v)", what, id, st.Serving)
				}
				union = union.Union(st.Serving)
				if !st.Serving.Empty() {
					who = append(who, id)
				}
				if strings.Contains(st.Waiting, "two replicas run with identity") {
					waiting++
				}
			}
			if len(who) == 1 && union.Equal(sharding.Set{sharding.Full}) && waiting == len(g.replicas)-1 {
				return who[0]
			}
			select {
			case <-g.changed:
			case <-time.After(100 * time.Millisecond): // Status moves without logging too
			case <-deadline:
				t.Fatalf("%s: not one replica serving and the others waiting within 30 s (serving: %v)", what, who)
			}
		}
	}

	// reconciles counts each replica's reconciles so far.
	reconciles := func() map[string]int {
		g.ledger.mu.Lock()
		defer g.ledger.mu.Unlock()
		n := map[string]int{}
		for _, by := range g.ledger.byKey {
			for _, id := range by {
				n[id]++
			}
		}
		return n
	}
	// onlyOne waits for 3 × objects more reconciles and fails if more than one
	// replica made them: the others must not have served meanwhile.
	onlyOne := func(what string) {
		t.Helper()
		before := reconciles()
		deadline := time.After(30 * time.Second)
		for {
			now, total := reconciles(), 0
			var who []string
			for id, n := range now {
				if n > before[id] {
					who = append(who, id)
					total += n - before[id]
				}
			}
			if len(who) > 1 {
				t.Fatalf("%s: replicas %v, all named r1, reconciled in the same stretch of time", what, who)
			}
			if total >= 3*objects {
				return
			}
			select {
			case <-g.changed:
			case <-time.After(100 * time.Millisecond): // reconciles log nothing
			case <-deadline:
				t.Fatalf("%s: %d reconciles in 30 s, want %d", what, total, 3*objects)
			}
		}
	}

	g.startAs("first", "r1")
	serving("one replica")
	g.startAs("second", "r1")
	if got := serving("a twin started"); got != "first" {
		t.Fatalf("the twin took over from a live replica: %s serves", got)
	}
	onlyOne("two replicas named r1")
	g.startAs("third", "r1")
	serving("a third started")
	onlyOne("three replicas named r1")
	g.stop("first") // a clean stop deletes the Lease: a waiting twin takes it at once
	took := time.Now()
	next := serving("the first stopped")
	t.Logf("after the serving replica stopped, %s took over in %s", next, time.Since(took).Round(time.Millisecond))
	onlyOne("two left")
	g.stop(next)
	serving("the second stopped")
	stopTouching()

	g.ledger.mu.Lock()
	defer g.ledger.mu.Unlock()
	for _, o := range g.ledger.overlaps {
		t.Error(o)
	}
	if len(g.ledger.byKey) != objects {
		t.Errorf("%d of %d objects were reconciled", len(g.ledger.byKey), objects)
	}
}
