package apiclient_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/clock"
)

// Derive leaves the client it derives from as it was: a request through it is
// told to its own Observer alone; one through the derived client to both, the
// original's first, with the caller's context.
func TestClient_Derive_adds_an_observer_and_changes_nothing_of_the_original(t *testing.T) {
	srv := apitest.NewServer(nil)
	defer srv.Close()
	told, tell := tellings(func(ctx context.Context) string { return " " + ctx.Value(ctxKey{}).(string) })
	c, err := srv.Client(apiclient.Options{Observer: apiclient.Observer{Answered: tell("own")}})
	if err != nil {
		t.Fatal(err)
	}
	d := c.Derive(apiclient.Derived{Clock: clock.NewFake(), Observer: apiclient.Observer{Answered: tell("derived")}})
	_, _ = c.Resource(apiclient.ConfigMaps).Namespace("default").Get(context.WithValue(context.Background(), ctxKey{}, "c"), "a")
	_, _ = d.Resource(apiclient.ConfigMaps).Namespace("default").Get(context.WithValue(context.Background(), ctxKey{}, "d"), "b")
	if want := []string{"own a c", "own b d", "derived b d"}; !slices.Equal(told(), want) {
		t.Fatalf("told %q, want %q", told(), want)
	}
	if _, ok := c.Clock().(apiclient.RealClock); !ok {
		t.Fatalf("the original's clock is now %T", c.Clock())
	}
}

// Adopt changes the client itself, once: a request through it is then told
// to the owner's Observer after its own, it waits on the owner's clock, and
// clients Derived from it afterwards are the owner's too; one Derived before
// is not. A second Adopt is an error and changes nothing.
func TestClient_Adopt_makes_the_client_itself_its_owners_once(t *testing.T) {
	srv := apitest.NewServer(nil)
	defer srv.Close()
	told, tell := tellings(func(context.Context) string { return "" })
	c, err := srv.Client(apiclient.Options{Observer: apiclient.Observer{Answered: tell("own")}})
	if err != nil {
		t.Fatal(err)
	}
	before := c.Derive(apiclient.Derived{})
	clock := clock.NewFake()
	if err := c.Adopt("test", apiclient.Derived{Clock: clock, Observer: apiclient.Observer{Answered: tell("owner")}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Adopt("another", apiclient.Derived{Observer: apiclient.Observer{Answered: tell("another")}}); err == nil {
		t.Fatal("a second Adopt: no error")
	}
	after := c.Derive(apiclient.Derived{})
	ctx := context.Background()
	for _, tc := range []struct {
		c    *apiclient.Client
		name string
	}{{c, "a"}, {before, "b"}, {after, "c"}} {
		_, _ = tc.c.Resource(apiclient.ConfigMaps).Namespace("default").Get(ctx, tc.name)
	}
	if want := []string{"own a", "owner a", "own b", "own c", "owner c"}; !slices.Equal(told(), want) {
		t.Fatalf("told %q, want %q", told(), want)
	}
	if got := c.Clock(); got != apiclient.Clock(clock) {
		t.Fatalf("the adopted client's clock is %T, want the owner's", got)
	}
	if _, ok := before.Clock().(apiclient.RealClock); !ok {
		t.Fatalf("a client Derived before the adoption waits on %T", before.Clock())
	}
}

// tellings records what Observers are told: tell(who) is an Answered that
// notes "who name" and what of its context says; told returns the notes.
func tellings(of func(context.Context) string) (told func() []string, tell func(who string) func(context.Context, apiclient.RequestInfo)) {
	var mu sync.Mutex
	var notes []string
	told = func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(notes)
	}
	tell = func(who string) func(context.Context, apiclient.RequestInfo) {
		return func(ctx context.Context, r apiclient.RequestInfo) {
			mu.Lock()
			defer mu.Unlock()
			notes = append(notes, who+" "+r.Name+of(ctx))
		}
	}
	return told, tell
}
