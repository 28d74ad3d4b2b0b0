package lease_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/controller/lease"
)

// The tests run Holders and Observers against apiclient/apitest's API server
// in memory, on one fake clock. Their Lease is ops/lock.

const (
	ns   = "ops"
	name = "lock"
)

// env is the server, the clock, and a client for the test's own moves.
type env struct {
	t      *testing.T
	srv    *apitest.Server
	clock  *clock.Fake
	leases apiclient.Typed[lease.Lease]
	// during, when set, runs before each request of a holder's (the server
	// answers after it): a test steps the clock there to make a slow request.
	during func(r *http.Request)
}

func newEnv(t *testing.T) *env {
	t.Helper()
	srv := apitest.NewServer(nil)
	srv.CreateNamespaces(ns)
	t.Cleanup(srv.Close)
	c, err := srv.Client(apiclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, srv: srv, clock: clock.NewFake(), leases: apiclient.NewTyped[lease.Lease](c).Namespace(ns)}
}

// holder returns a Holder of ops/lock as identity, LeaseDuration d, RenewDeadline
// two thirds of it.
func (e *env) holder(identity string, d time.Duration) *lease.Holder {
	e.t.Helper()
	c, err := e.srv.Client(apiclient.Options{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if e.during != nil {
			e.during(r)
		}
		return e.srv.Transport().RoundTrip(r)
	})})
	if err != nil {
		e.t.Fatal(err)
	}
	return lease.NewHolder(lease.HolderConfig{Client: c, Namespace: ns, Name: name, Identity: identity,
		LeaseDuration: d, RenewDeadline: d * 2 / 3, Clock: e.clock})
}

// stored is the Lease as the server has it.
func (e *env) stored() *lease.Lease {
	e.t.Helper()
	l, err := e.leases.Get(context.Background(), name)
	if err != nil {
		e.t.Fatal(err)
	}
	return l
}

// put stores l over whatever is stored, as another writer (kubectl edit)
// would: at the stored resourceVersion, since a Lease's update must name
// one (the API server answers 422 without).
func (e *env) put(l *lease.Lease) {
	e.t.Helper()
	l.Metadata.ResourceVersion = e.stored().Metadata.ResourceVersion
	if _, err := e.leases.Update(context.Background(), l, apiclient.WriteOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

// add stores a Lease given as raw JSON spec members, and returns it as the
// server sent it.
func (e *env) add(name, spec string) *apiclient.Object {
	e.t.Helper()
	obj, err := e.srv.Add(apiclient.Leases, `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease",
		"metadata":{"name":"`+name+`","namespace":"`+ns+`"},"spec":{`+spec+`}}`)
	if err != nil {
		e.t.Fatal(err)
	}
	return obj
}

// at is t as an offset from the fake clock's start.
func at(t *lease.MicroTime) time.Duration { return t.Sub(clock.NewFake().Now()) }

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
