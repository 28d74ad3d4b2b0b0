package controller_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/leaderelection"
	"github.com/kubewire/kubewire/controller/lease"
)

// refuseLeaseWrites answers every write of a Lease with code and message, as
// the API server does when the Lease's namespace is missing (404) or the
// replica's role lacks the verb (403); everything else goes to next.
type refuseLeaseWrites struct {
	next          http.RoundTripper
	code          int
	reason, msg   string
	writesRefused atomic.Int32
}

func (rt *refuseLeaseWrites) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodGet || !strings.Contains(r.URL.Path, "/leases") {
		return rt.next.RoundTrip(r)
	}
	rt.writesRefused.Add(1)
	body := `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"` + rt.msg + `","reason":"` + rt.reason + `","code":` + strconv.Itoa(rt.code) + `}`
	return &http.Response{StatusCode: rt.code, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
}

func TestManager_a_lease_that_cannot_be_written_is_a_warning_and_makes_the_replica_not_ready(t *testing.T) {
	tests := []struct {
		name, reason, msg, want string
		code                    int
	}{
		{"its_namespace_is_missing", "NotFound", `namespaces \"nope\" not found`, "not found", 404},
		{"writes_are_forbidden", "Forbidden", `leases.coordination.k8s.io is forbidden: User \"me\" cannot create resource \"leases\"`, "forbidden", 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := clock.NewFake()
			srv := apitest.NewServer(nil)
			t.Cleanup(srv.Close)
			next, err := srv.Config().Transport()
			must(t, err)
			rt := &refuseLeaseWrites{next: next, code: tt.code, reason: tt.reason, msg: tt.msg}
			client, err := srv.Client(apiclient.Options{Transport: rt, Clock: clock})
			must(t, err)
			var logs syncBuffer
			m, err := controller.NewManager(client, controller.ManagerOptions{Clock: clock,
				Log:            slog.New(slog.NewTextHandler(&logs, nil)),
				LeaderElection: &leaderelection.Config{Member: lease.Member{Namespace: "nope", Identity: "me"}, Name: "kubewire"}})
			must(t, err)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- m.Run(ctx) }()
			// Three tries, each refused; after each the elector waits again.
			for rt.writesRefused.Load() < 3 {
				clock.BlockUntilWaiters(1)
				clock.Step(5 * time.Second)
			}
			clock.BlockUntilWaiters(1)
			role, err := m.Ready()
			if err == nil || !strings.Contains(err.Error(), "nope/kubewire") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Ready = %q, %v; want not ready, naming the lease and why", role, err)
			}
			if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "lease=nope/kubewire") {
				t.Errorf("no warning about the lease in the log:\n%s", logs.String())
			}
			cancel()
			must(t, <-done)
		})
	}
}
