package apitest_test

import (
	"context"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/kubeconfig"
)

// handlerRoundTripper serves a client straight from a Handler.
type handlerRoundTripper struct{ h http.Handler }

func (rt handlerRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	rt.h.ServeHTTP(rec, req)
	return rec.Result(), nil
}

// made creates two pods from generateName on a handler drawing from r, and
// returns their names and uids.
func made(t *testing.T, r *rand.ChaCha8) []string {
	t.Helper()
	opts := apitest.HandlerOptions{Namespaces: []string{"demo"}}
	if r != nil {
		opts.Rand = r
	}
	h, stop := apitest.NewHandlerWith(opts)
	defer stop()
	c, err := apiclient.New(&kubeconfig.Config{Server: "https://apitest.invalid"}, apiclient.Options{Transport: handlerRoundTripper{h}})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for range 2 {
		o, err := c.Resource(apiclient.Pods).Namespace("demo").Create(context.Background(), []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"generateName":"web-"}}`), apiclient.WriteOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, o.Metadata.Name, o.Metadata.UID)
	}
	return out
}

// Names made from generateName and uids are drawn from HandlerOptions.Rand:
// the same source gives the same ones, as a deterministic test needs; by
// default they are random.
func TestHandler_draws_generated_names_and_uids_from_its_Rand(t *testing.T) {
	a := made(t, rand.NewChaCha8([32]byte{1}))
	b := made(t, rand.NewChaCha8([32]byte{1}))
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("the same source gave %q, then %q", a, b)
		}
	}
	if c := made(t, nil); c[0] == a[0] || c[1] == a[1] {
		t.Fatalf("crypto/rand gave %q, the seeded source %q", c, a)
	}
	if a[0] == a[2] || a[1] == a[3] {
		t.Fatalf("two creates got the same name or uid: %q", a)
	}
}
