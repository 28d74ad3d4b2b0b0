package controller

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient/clock"
)

// The worker loop asks one hook before each Reconcile, and does what it says:
// now (Reconcile with the hook's context, then its release), later (queued
// again after the hook's delay, no Reconcile, no error) or drop (forgotten, no
// Reconcile). The loop itself knows of neither the sharding gate nor the
// staleness guard: the Manager installs them as this hook.
func TestLoop_does_what_the_admit_hook_says(t *testing.T) {
	type key struct{}
	var reconciled []string
	var sawHookCtx bool
	r := ReconcilerFunc(func(ctx context.Context, req Request) (Result, error) {
		reconciled = append(reconciled, req.Name)
		sawHookCtx = sawHookCtx || ctx.Value(key{}) == "hook"
		return Result{}, nil
	})
	clk := clock.NewFake()
	c := NewController("loop", r, Options{}, clk, slog.New(slog.DiscardHandler))
	released := 0
	c.admit = func(ctx context.Context, req Request) admission {
		switch req.Name {
		case "later":
			return admission{verdict: admitLater, after: time.Second}
		case "drop":
			return admission{verdict: admitDrop}
		}
		return admission{ctx: context.WithValue(ctx, key{}, "hook"), release: func() { released++ }}
	}
	for _, name := range []string{"later", "drop", "now"} {
		c.queue.Add(Request{Namespace: "demo", Name: name})
	}
	for range 3 {
		if !c.processNextItem(context.Background()) {
			t.Fatal("the loop stopped with work queued")
		}
	}
	if got, want := len(reconciled), 1; got != want || reconciled[0] != "now" {
		t.Fatalf("reconciled %v; want only [now]", reconciled)
	}
	if !sawHookCtx {
		t.Error("the Reconcile did not get the context the hook admitted it with")
	}
	if got, want := released, 1; got != want {
		t.Errorf("release called %d times; want %d (once, after the Reconcile)", got, want)
	}
	if got, want := c.queue.Len(), 0; got != want {
		t.Fatalf("queue length %d before the delay; want %d", got, want)
	}
	if got, want := c.Stats().Backoff, 1; got != want {
		t.Errorf("Stats.Backoff = %d; want %d (the Request admitted later)", got, want)
	}
	clk.Step(time.Second)
	if got, want := c.queue.Len(), 1; got != want {
		t.Fatalf("queue length %d after the hook's delay; want %d (the Request admitted later)", got, want)
	}
	if got, _ := c.queue.Get(); got.Name != "later" {
		t.Fatalf("queued after the delay: %v; want demo/later", got)
	}
}

// The Manager's hook is the sharding gate, then the staleness guard: the
// guard is asked only what the gate admits, with the gate's context, and a
// Request the gate admitted and the guard put off still releases the gate
// (a hand-over waits for every admitted reconcile to release it).
func TestAdmit_then_asks_the_second_only_what_the_first_admits(t *testing.T) {
	type key struct{}
	var gateReleased, guardAsked int
	gate := admitFunc(func(ctx context.Context, req Request) admission {
		if req.Name == "theirs" {
			return admission{verdict: admitDrop}
		}
		return admission{ctx: context.WithValue(ctx, key{}, "gate"), release: func() { gateReleased++ }}
	})
	guard := admitFunc(func(ctx context.Context, req Request) admission {
		guardAsked++
		if ctx.Value(key{}) != "gate" {
			t.Errorf("the guard was asked about %s without the gate's context", req)
		}
		if req.Name == "stale" {
			return admission{verdict: admitLater, after: time.Second}
		}
		return admission{ctx: ctx}
	})
	hook := gate.then(guard)
	ctx := context.Background()
	if got := hook(ctx, Request{Name: "theirs"}); got.verdict != admitDrop || guardAsked != 0 {
		t.Fatalf("theirs: verdict %v, guard asked %d times; want drop, 0", got.verdict, guardAsked)
	}
	if got := hook(ctx, Request{Name: "stale"}); got.verdict != admitLater || got.after != time.Second || gateReleased != 1 {
		t.Fatalf("stale: verdict %v after %v, gate released %d times; want later after 1s, released once", got.verdict, got.after, gateReleased)
	}
	got := hook(ctx, Request{Name: "mine"})
	if got.verdict != admitNow || got.ctx.Value(key{}) != "gate" || got.release == nil {
		t.Fatalf("mine: verdict %v, context %v; want now, with the gate's context and its release", got.verdict, got.ctx)
	}
	got.release()
	if gateReleased != 2 {
		t.Fatalf("gate released %d times after mine's reconcile; want 2", gateReleased)
	}
}
