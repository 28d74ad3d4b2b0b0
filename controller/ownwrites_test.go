package controller_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/controller"
)

// Read-your-own-writes through the Manager: a read that waits for the
// process's writes waits for those begun before it — answered, then shown by
// the cache — and not for a write its cache would not hold.
func TestManager_WaitForOwnWrites(t *testing.T) {
	srv := apitest.NewServer(nil)
	srv.CreateNamespaces("demo")
	defer srv.Close()
	gate := &postGate{next: srv.Transport(), sent: make(chan struct{}, 1)}
	client, err := srv.Client(apiclient.Options{Transport: gate})
	must(t, err)
	m, err := controller.NewManager(client, controller.ManagerOptions{Namespace: "demo", Log: quiet})
	must(t, err)
	all, web := m.Informer(apiclient.Pods), m.Informer(apiclient.Pods, controller.WithLabels("app=web"))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }() // owned by the test: stopped below
	defer func() { cancel(); <-done }()
	within, stop := context.WithTimeout(ctx, time.Minute)
	defer stop()
	if !all.WaitForCacheSync(within) || !web.WaitForCacheSync(within) {
		t.Fatal("informers not synced")
	}
	gaveUp, giveUp := context.WithCancelCause(ctx)
	giveUp(errors.New("not waiting"))
	pods := m.Client().Resource(apiclient.Pods).Namespace("demo")

	release := srv.HoldWatch(apiclient.Pods)
	_, err = pods.Create(ctx, []byte(`{"metadata":{"name":"a","labels":{"app":"web"}}}`), apiclient.WriteOptions{})
	must(t, err)
	if err := all.WaitForOwnWrites(gaveUp); err == nil || !strings.Contains(err.Error(), "not waiting") {
		t.Fatalf("with the create not shown yet: %v", err)
	}
	if err := web.WaitForOwnWrites(gaveUp); err == nil {
		t.Fatal("the app=web cache would hold a: it must wait for it")
	}
	release()
	must(t, all.WaitForOwnWrites(within))
	must(t, web.WaitForOwnWrites(within))

	release = srv.HoldWatch(apiclient.Pods)
	defer release()
	_, err = pods.Create(ctx, []byte(`{"metadata":{"name":"b"}}`), apiclient.WriteOptions{})
	must(t, err)
	must(t, web.WaitForOwnWrites(gaveUp)) // b is not app=web: that cache never holds it
	if err := all.WaitForOwnWrites(gaveUp); err == nil {
		t.Fatal("the cache of every pod would hold b: it must wait for it")
	}

	// A write still on its way is waited for too: its answer is not known yet.
	gate.hold = make(chan struct{})
	created := make(chan error, 1)
	go func() {
		_, err := pods.Create(ctx, []byte(`{"metadata":{"name":"c","labels":{"app":"web"}}}`), apiclient.WriteOptions{})
		created <- err
	}()
	select {
	case <-gate.sent:
	case <-time.After(time.Minute):
		t.Fatal("the create never reached the transport")
	}
	if err := web.WaitForOwnWrites(gaveUp); err == nil || !strings.Contains(err.Error(), "to be answered") {
		t.Fatalf("with a create in flight: %v", err)
	}
	close(gate.hold)
	must(t, <-created)
}

// postGate holds each POST at hold (when set) after saying so on sent. hold
// is set before the goroutine whose POST it holds starts.
type postGate struct {
	next http.RoundTripper
	hold chan struct{}
	sent chan struct{}
}

func (g *postGate) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPost && g.hold != nil {
		g.sent <- struct{}{}
		<-g.hold
	}
	return g.next.RoundTrip(req)
}
