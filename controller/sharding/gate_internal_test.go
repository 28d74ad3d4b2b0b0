package sharding

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

// at is when the gate tests admit; their Lease was renewed until an hour later.
var at = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func servingEverything() *gate {
	g := newGate()
	g.renewed(at.Add(time.Hour))
	g.widen(Set{Full})
	return g
}

// Narrowing the served set waits for the reconciles admitted before it, and
// only those: one admitted after the narrowing does not hold it up.
func TestGate_narrowing_waits_for_the_reconciles_already_running(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := servingEverything()
		_, release, ok := g.admit(context.Background(), 1, at)
		if !ok {
			t.Fatal("hash 1 not admitted while serving everything")
		}
		narrowed := make(chan error, 1)
		go func() { narrowed <- g.narrow(context.Background(), Set{{First: 100, Last: 200}}) }()
		synctest.Wait() // the narrowing is now waiting, or done

		if _, _, ok := g.admit(context.Background(), 1, at); ok {
			t.Fatal("hash 1 admitted after narrowing to 100-200")
		}
		_, later, ok := g.admit(context.Background(), 150, at)
		if !ok {
			t.Fatal("hash 150 refused after narrowing to 100-200")
		}
		select {
		case err := <-narrowed:
			t.Fatalf("narrowing returned (%v) while a reconcile admitted before it still ran", err)
		default:
		}
		release()
		if err := <-narrowed; err != nil {
			t.Fatalf("narrowing: %v", err)
		}
		later()
	})
}

func TestGate_narrowing_gives_up_when_its_context_ends(t *testing.T) {
	g := servingEverything()
	_, release, _ := g.admit(context.Background(), 7, at)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := g.narrow(ctx, nil); err == nil {
		t.Fatal("narrowing returned nil with a reconcile still running")
	}
	// The next call waits again for the same reconcile.
	done := make(chan error)
	go func() { done <- g.narrow(context.Background(), nil) }()
	release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// Past the renew deadline nothing is admitted, in a served range or not: the
// others count this replica gone LeaseDuration after its last renewal.
func TestGate_admits_nothing_from_the_renew_deadline_on(t *testing.T) {
	g := servingEverything()
	if _, _, ok := g.admit(context.Background(), 7, at.Add(time.Hour-time.Nanosecond)); !ok {
		t.Fatal("refused before the deadline")
	}
	if _, _, ok := g.admit(context.Background(), 7, at.Add(time.Hour)); ok {
		t.Fatal("admitted at the deadline")
	}
	g.renewed(at.Add(2 * time.Hour))
	if _, _, ok := g.admit(context.Background(), 7, at.Add(time.Hour)); !ok {
		t.Fatal("refused after a renewal moved the deadline")
	}
}

// Widening never waits, even while reconciles of a narrowing that timed out
// still run: the Sharder's round, which renews the Lease, must not block on
// a slow reconcile. The next narrowing still waits for them.
func TestGate_widening_returns_at_once_while_an_old_reconcile_runs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := servingEverything()
		_, release, _ := g.admit(context.Background(), 7, at)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := g.narrow(ctx, Set{{First: 100, Last: 200}}); err == nil {
			t.Fatal("narrowing returned nil with a reconcile running")
		}
		g.widen(Set{Full}) // returns: nothing to wait for
		narrowed := make(chan error, 1)
		go func() { narrowed <- g.narrow(context.Background(), nil) }()
		synctest.Wait()
		select {
		case err := <-narrowed:
			t.Fatalf("narrowing returned (%v) while the old reconcile runs", err)
		default:
		}
		release()
		if err := <-narrowed; err != nil {
			t.Fatal(err)
		}
	})
}

// A reconcile still running when the renew deadline passes has its context
// cancelled; one admitted after the next renewal has a live one.
func TestGate_a_lapse_cancels_the_running_reconciles(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := servingEverything()
		ctx, release, _ := g.admit(context.Background(), 7, at)
		defer release()
		n := g.lapsed(at.Add(time.Hour - time.Nanosecond))
		synctest.Wait() // the cancellation, if any, has run
		if n != 0 || ctx.Err() != nil {
			t.Fatalf("before the deadline: lapsed %d, context %v", n, ctx.Err())
		}
		n = g.lapsed(at.Add(time.Hour))
		synctest.Wait()
		if n != 1 || ctx.Err() == nil {
			t.Fatalf("at the deadline: lapsed %d (want 1), context %v (want cancelled)", n, ctx.Err())
		}
		g.renewed(at.Add(2 * time.Hour))
		later, done, ok := g.admit(context.Background(), 7, at.Add(time.Hour))
		synctest.Wait()
		if !ok || later.Err() != nil {
			t.Fatalf("after a renewal: admitted %v, context %v", ok, later.Err())
		}
		done()
	})
}
