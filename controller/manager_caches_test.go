package controller_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller"
)

// messages is a slog handler that hands each record's message to a channel,
// so that a test can follow what a Manager says, in order.
type messages chan string

func (m messages) Enabled(context.Context, slog.Level) bool      { return true }
func (m messages) Handle(_ context.Context, r slog.Record) error { m <- r.Message; return nil }
func (m messages) WithAttrs([]slog.Attr) slog.Handler            { return m }
func (m messages) WithGroup(string) slog.Handler                 { return m }

// A Reconcile reads Listers its controller does not watch. A controller that
// started once its own watch had listed would read a cache still listing and
// take what exists for deleted (a collector deleting what it cannot find
// deletes what it should keep): no Reconcile runs before every cache the
// Manager holds has listed.
func TestManager_no_reconcile_before_every_cache_has_listed(t *testing.T) {
	said := make(messages, 100)
	m := newTestManager(t, controller.ManagerOptions{Log: slog.New(said)})
	configmaps := m.Informer(apiclient.ConfigMaps) // read in Reconcile, not watched
	saw := make(chan bool, 10)
	_, err := controller.New(m.Manager, "pods", controller.Options{}).For(apiclient.Pods).
		Complete(controller.ReconcilerFunc(func(_ context.Context, r controller.Request) (controller.Result, error) {
			_, err := configmaps.Get("default", "settings")
			saw <- err == nil
			return controller.Result{}, nil
		}))
	must(t, err)
	m.start(t)
	must(t, m.scripts.of(t, "pods").Sink.Replace([]*apiclient.Object{pod("a", "1")}, "1"))
	// The pods cache has listed: the controller either says it waits for the
	// configmaps, or (the bug) starts.
	for msg := range said {
		if msg == "controller started" {
			t.Fatal("the controller started while the configmaps cache it may read was still listing")
		}
		if msg == "controller waits for the caches it may read to list" {
			break
		}
	}
	cm, err := apiclient.DecodeObject([]byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"settings","namespace":"default","resourceVersion":"2"}}`))
	must(t, err)
	must(t, m.scripts.of(t, "configmaps").Sink.Replace([]*apiclient.Object{cm}, "2"))
	if !<-saw {
		t.Fatal("the first Reconcile did not find the ConfigMap the cache lists")
	}
}
