package sharding

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/controller/lease"
)

// A replica whose renewals fail waits package lease's renew policy
// (Holder.RetryWait), as leader election does: a RetryPeriod, cut short at
// the renew deadline. With a RetryPeriod of 300 ms and a RenewDeadline of
// 1 s, the renewals after the one at +0 s fail at +0.3, +0.6 and +0.9 s, and
// the next is tried at +1 s, as the deadline passes — not at +1.2 s, a
// RetryPeriod after its deadline.
func TestRun_a_failing_renewal_is_tried_again_at_the_renew_deadline(t *testing.T) {
	srv := apitest.NewServer(nil)
	srv.CreateNamespaces("ops")
	defer srv.Close()
	clock := clock.NewFake()
	start := clock.Now()
	attempts := make(chan time.Duration, 16)
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		// The round at +0 s writes the Lease (created, then its claim); every
		// write after fails.
		if at := clock.Now().Sub(start); at > 0 && (r.Method == http.MethodPut || r.Method == http.MethodPost) && strings.Contains(r.URL.Path, "/leases") {
			attempts <- at
			return &http.Response{StatusCode: http.StatusServiceUnavailable, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("down")), Request: r}, nil
		}
		return srv.Transport().RoundTrip(r)
	})
	c, err := srv.Client(apiclient.Options{Transport: rt})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{
		Member: lease.Member{Client: c, Namespace: "ops", Identity: "a", Clock: clock, LeaseDuration: 2 * time.Second, RenewDeadline: time.Second, RetryPeriod: 300 * time.Millisecond},
		Name:   "g",
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	defer func() { cancel(); <-done }()

	next := func(want time.Duration) {
		t.Helper()
		select {
		case got := <-attempts:
			if got != want {
				t.Fatalf("a renewal at +%s, want +%s", got, want)
			}
		case <-time.After(10 * time.Second): // a watchdog
			t.Fatalf("no renewal at +%s", want)
		}
	}
	clock.BlockUntilWaiters(2) // the round at +0 s is over
	// Each step waits for Run's wait and watchDeadline's (two timers) first.
	for _, step := range []struct{ wait, at time.Duration }{
		{300 * time.Millisecond, 300 * time.Millisecond},
		{300 * time.Millisecond, 600 * time.Millisecond},
		{300 * time.Millisecond, 900 * time.Millisecond},
		{100 * time.Millisecond, time.Second},
	} {
		clock.BlockUntilWaiters(2)
		clock.Step(step.wait)
		next(step.at)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
