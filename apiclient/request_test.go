package apiclient_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/apiclient/kubeconfig"
)

func TestRequests_carry_the_kubewire_User_Agent(t *testing.T) {
	var ua atomic.Value
	c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		ua.Store(r.Header.Get("User-Agent"))
		writeJSON(w, 200, podJSON)
	})
	if _, err := c.Resource(apiclient.Pods).Namespace("default").Get(context.Background(), "web-1"); err != nil {
		t.Fatal(err)
	}
	want := "kubewire/" + apiclient.Version + " (" + runtime.GOOS + "/" + runtime.GOARCH + ")"
	if got := ua.Load(); got != want {
		t.Fatalf("User-Agent = %q, want %q", got, want)
	}
}

func TestRetryAfter_is_honoured_for_429_and_5xx(t *testing.T) {
	for _, code := range []int{429, 503} {
		var calls atomic.Int32
		c, clock := newServer(t, func(w http.ResponseWriter, r *http.Request) {
			if calls.Add(1) <= 2 {
				w.Header().Set("Retry-After", "3")
				writeJSON(w, code, statusBody(code, "TooManyRequests", "slow down"))
				return
			}
			writeJSON(w, 200, podJSON)
		})
		done := make(chan error, 1)
		go func() {
			_, err := c.Resource(apiclient.Pods).Namespace("default").Get(context.Background(), "web-1")
			done <- err
		}()
		for i := 0; i < 2; i++ {
			clock.BlockUntilWaiters(1)
			if d, _ := clock.NextDeadline(); d != 3*time.Second {
				t.Fatalf("%d: waits %v, want the 3s of Retry-After", code, d)
			}
			clock.Step(3 * time.Second)
		}
		if err := <-done; err != nil {
			t.Fatalf("%d: %v", code, err)
		}
		if got := calls.Load(); got != 3 {
			t.Fatalf("%d: %d calls, want 3", code, got)
		}
	}
}

func TestRetryAfter_gives_up_after_MaxRetries(t *testing.T) {
	var calls atomic.Int32
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Retry-After", "0")
		writeJSON(w, 429, statusBody(429, "TooManyRequests", "slow down"))
	}))
	defer ts.Close()
	c, err := apiclient.New(&kubeconfig.Config{Server: ts.URL}, apiclient.Options{Transport: ts.Client().Transport, QPS: -1, MaxRetries: 10})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Resource(apiclient.Pods).Namespace("default").Get(context.Background(), "x")
	if !apiclient.IsTooManyRequests(err) {
		t.Fatalf("err = %v, want 429", err)
	}
	if got := calls.Load(); got != 11 {
		t.Fatalf("%d calls, want 1 + 10 retries", got)
	}
}

func TestErrors_without_RetryAfter_are_not_retried(t *testing.T) {
	var calls atomic.Int32
	c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		writeJSON(w, 500, statusBody(500, "InternalError", "boom"))
	})
	_, err := c.Resource(apiclient.Pods).Namespace("default").Get(context.Background(), "x")
	if apiclient.CodeOf(err) != 500 || calls.Load() != 1 {
		t.Fatalf("err %v after %d calls, want one 500", err, calls.Load())
	}
}

func TestRateLimit_allows_a_burst_then_QPS(t *testing.T) {
	var calls atomic.Int32
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		writeJSON(w, 200, podJSON)
	}))
	defer ts.Close()
	clock := clock.NewFake()
	c, err := apiclient.New(&kubeconfig.Config{Server: ts.URL}, apiclient.Options{Transport: ts.Client().Transport, QPS: 2, Burst: 3, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	get := func() error {
		_, err := c.Resource(apiclient.Pods).Namespace("default").Get(context.Background(), "x")
		return err
	}
	for i := 0; i < 3; i++ { // the burst: no waiting
		if err := get(); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan error, 1)
	go func() { done <- get() }()
	clock.BlockUntilWaiters(1)
	if d, _ := clock.NextDeadline(); d != 500*time.Millisecond {
		t.Fatalf("4th request waits %v, want 500ms at 2 QPS", d)
	}
	if got := calls.Load(); got != 3 {
		t.Fatalf("%d calls before the wait ended, want 3", got)
	}
	clock.Step(500 * time.Millisecond)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestContext_cancellation_ends_a_wait(t *testing.T) {
	c, clock := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "60")
		writeJSON(w, 429, statusBody(429, "TooManyRequests", "slow down"))
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := c.Resource(apiclient.Pods).Namespace("default").Get(ctx, "x")
		done <- err
	}()
	clock.BlockUntilWaiters(1)
	cancel()
	if err := <-done; err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Fatalf("err = %v, want context canceled", err)
	}
}

func TestNew_rejects_a_server_that_is_not_a_URL(t *testing.T) {
	for _, server := range []string{"", "127.0.0.1:6443", "ftp://x", "https://"} {
		_, err := apiclient.New(&kubeconfig.Config{Server: server, Source: "/k/config"}, apiclient.Options{Transport: http.DefaultTransport})
		if err == nil || !strings.Contains(err.Error(), "/k/config") {
			t.Errorf("New(server %q) error = %v, want one naming the config", server, err)
		}
	}
}

func TestRetryOnConflict_retries_only_conflicts(t *testing.T) {
	conflict := apiclient.ErrorFromResponse(409, []byte(statusBody(409, "Conflict", "the object has been modified")))
	runs := 0
	err := apiclient.RetryOnConflict(context.Background(), func() error {
		runs++
		if runs < 3 {
			return conflict
		}
		return nil
	})
	if err != nil || runs != 3 {
		t.Fatalf("err %v after %d runs, want success on the 3rd", err, runs)
	}
	runs = 0
	err = apiclient.RetryOnConflict(context.Background(), func() error { runs++; return conflict })
	if !apiclient.IsConflict(err) || runs != apiclient.DefaultRetry.Steps {
		t.Fatalf("err %v after %d runs, want Conflict after %d", err, runs, apiclient.DefaultRetry.Steps)
	}
	runs = 0
	notFound := apiclient.ErrorFromResponse(404, nil)
	err = apiclient.RetryOnConflict(context.Background(), func() error { runs++; return notFound })
	if !apiclient.IsNotFound(err) || runs != 1 {
		t.Fatalf("err %v after %d runs, want NotFound at once", err, runs)
	}
}

// A Retry-After of eleven days is a broken server: the wait is capped at a
// minute, and said in the log (issue 16).
func TestRetryAfter_is_capped_at_a_minute_and_logged(t *testing.T) {
	var calls atomic.Int32
	var logged strings.Builder
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("Retry-After", "1000000")
			writeJSON(w, 429, statusBody(429, "TooManyRequests", "slow down"))
			return
		}
		writeJSON(w, 200, podJSON)
	}))
	defer ts.Close()
	clock := clock.NewFake()
	c, err := apiclient.New(&kubeconfig.Config{Server: ts.URL}, apiclient.Options{Transport: ts.Client().Transport, Clock: clock,
		Log: slog.New(slog.NewTextHandler(&syncWriter{w: &logged}, nil))})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := c.Resource(apiclient.Pods).Namespace("default").Get(context.Background(), "web-1")
		done <- err
	}()
	clock.BlockUntilWaiters(1)
	if d, _ := clock.NextDeadline(); d != time.Minute {
		t.Fatalf("waits %v, want the cap of 1m0s", d)
	}
	clock.Step(time.Minute)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logged.String(), "wait=1m0s") {
		t.Fatalf("log %q, want the wait in it", logged.String())
	}
}

// syncWriter serialises writes: the client logs from its own goroutine.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
