package apiclient_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
)

// Derive leaves the client it derives from as it was: a request through it is
// told to its own Observer alone; one through the derived client to both, the
// original's first, with the caller's context.
func TestClient_Derive_adds_an_observer_and_changes_nothing_of_the_original(t *testing.T) {
	srv := apitest.NewServer(nil)
	defer srv.Close()
	var mu sync.Mutex
	var told []string
	tell := func(who string) func(context.Context, apiclient.RequestInfo) {
		return func(ctx context.Context, r apiclient.RequestInfo) {
			mu.Lock()
			defer mu.Unlock()
			told = append(told, who+" "+r.Name+" "+ctx.Value(ctxKey{}).(string))
		}
	}
	c, err := srv.Client(apiclient.Options{Observer: apiclient.Observer{Answered: tell("own")}})
	if err != nil {
		t.Fatal(err)
	}
	d := c.Derive(apiclient.Derived{Clock: apitest.NewClock(), Observer: apiclient.Observer{Answered: tell("derived")}})
	_, _ = c.Resource(apiclient.ConfigMaps).Namespace("default").Get(context.WithValue(context.Background(), ctxKey{}, "c"), "a")
	_, _ = d.Resource(apiclient.ConfigMaps).Namespace("default").Get(context.WithValue(context.Background(), ctxKey{}, "d"), "b")
	if want := []string{"own a c", "own b d", "derived b d"}; !slices.Equal(told, want) {
		t.Fatalf("told %q, want %q", told, want)
	}
	if _, ok := c.Clock().(apiclient.RealClock); !ok {
		t.Fatalf("the original's clock is now %T", c.Clock())
	}
}
