//go:build unix

package chaos_test

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/listwatch"
)

// A stopped API server under a watch. SIGSTOP freezes kube-apiserver with its
// connections open: nothing is closed and nothing is answered, a half-open
// connection as after a NAT forgot it or a host froze. The transport's HTTP/2
// pings (apiclient/kubeconfig/transport.go: a ping after 30 s of silence, 15 s
// for its answer) must fail the watch, with a reason, long before the
// Reflector's watchdog would (its watch timeout plus a margin: over five
// minutes); once the server is continued, the Reflector watches again and sees
// what changed.
func TestIntegration_a_stopped_server_is_noticed_by_HTTP2_pings(t *testing.T) {
	cl, _ := startCluster(t)
	c, _ := newClient(t, cl.cfg)
	ns := createNamespace(t, c)
	pods := c.Resource(apiclient.Pods).Namespace(ns)
	steps := make(chan listwatch.Step, 10_000)
	refl := listwatch.New(pods, discard{}, listwatch.Options{Name: "pods", Backoff: backoff, Logger: quiet,
		OnStep: func(s listwatch.Step) { steps <- s }})
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- refl.Run(ctx) }() // owned by the test: the cleanup waits for it
	t.Cleanup(func() { cancel(); <-ran })
	watchdog := time.After(4 * time.Minute) // ends a test that would hang; it times nothing
	await := func(what string, match func(listwatch.Step) bool) listwatch.Step {
		t.Helper()
		for {
			select {
			case s := <-steps:
				if match(s) {
					return s
				}
			case <-watchdog:
				t.Fatalf("waiting for %s: no such step", what)
			}
		}
	}
	create := func(name string) {
		t.Helper()
		if _, err := pods.Create(context.Background(), podJSON(name), apiclient.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	// The pod is created once the list is read, so that it comes down the watch
	// (created sooner, it could be one of the list's items, and no watch event).
	await("the first list", func(s listwatch.Step) bool { return s.Op == listwatch.OpListed })
	create("before")
	await("the watch to deliver pod before", func(s listwatch.Step) bool { return s.Op == listwatch.OpAdd && s.Key == ns+"/before" })
	stopped := time.Now()
	cl.api.signal(syscall.SIGSTOP)
	t.Cleanup(func() { cl.api.signal(syscall.SIGCONT) })
	s := await("the watch to fail", func(s listwatch.Step) bool { return s.Op == listwatch.OpError || s.Op == listwatch.OpIdle })
	if s.Op == listwatch.OpIdle || errors.Is(s.Err, listwatch.ErrWatchIdle) {
		t.Fatalf("the watch was dropped by the watchdog (%s after SIGSTOP), not by HTTP/2 pings", time.Since(stopped).Round(time.Second))
	}
	t.Logf("SIGSTOP: the watch failed %s later: %v", time.Since(stopped).Round(time.Second), s.Err)

	cl.api.signal(syscall.SIGCONT)
	create("after")
	// After the failed watch the Reflector may watch again from its version, or
	// list again: pod after is then an event or an item of that list.
	await("the Reflector to deliver pod after", func(s listwatch.Step) bool {
		return (s.Op == listwatch.OpAdd || s.Op == listwatch.OpItem) && s.Key == ns+"/after"
	})
}

func podJSON(name string) []byte {
	return []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"` + name + `"},"spec":{"containers":[{"name":"c","image":"busybox"}]}}`)
}

// discard is a Sink that keeps nothing: the test reads the Reflector's steps.
type discard struct{}

func (discard) Add(*apiclient.Object) error               { return nil }
func (discard) Update(*apiclient.Object) error            { return nil }
func (discard) Delete(*apiclient.Object) error            { return nil }
func (discard) Replace([]*apiclient.Object, string) error { return nil }
