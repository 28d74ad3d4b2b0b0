package sharding

import (
	"context"
	"testing"
	"testing/synctest"
)

// Narrowing the served set waits for the reconciles admitted before it, and
// only those: one admitted after the narrowing does not hold it up.
func TestGate_narrowing_waits_for_the_reconciles_already_running(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate()
		_ = g.set(context.Background(), Set{Full})
		release, ok := g.admit(1)
		if !ok {
			t.Fatal("hash 1 not admitted while serving everything")
		}
		narrowed := make(chan error, 1)
		go func() { narrowed <- g.set(context.Background(), Set{{First: 100, Last: 200}}) }()
		synctest.Wait() // the narrowing is now waiting, or done

		if _, ok := g.admit(1); ok {
			t.Fatal("hash 1 admitted after narrowing to 100-200")
		}
		later, ok := g.admit(150)
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
	g := newGate()
	_ = g.set(context.Background(), Set{Full})
	release, _ := g.admit(7)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := g.set(ctx, nil); err == nil {
		t.Fatal("narrowing returned nil with a reconcile still running")
	}
	// The next call waits again for the same reconcile.
	done := make(chan error)
	go func() { done <- g.set(context.Background(), nil) }()
	release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
