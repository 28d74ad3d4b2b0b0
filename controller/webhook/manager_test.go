package webhook_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/leaderelection"
	"github.com/kubewire/kubewire/controller/lease"
	"github.com/kubewire/kubewire/controller/webhook"
)

// A standby replica (another holds the Lease) serves admission all the
// same: the Manager runs the webhook server outside the leader's work, and
// its /readyz waits for it.
func TestNew_the_Manager_serves_webhooks_on_a_standby_replica(t *testing.T) {
	api := apitest.NewServer(nil)
	t.Cleanup(api.Close)
	client, err := api.Client(apiclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = apiclient.NewTyped[lease.Lease](client).Namespace("default").Create(context.Background(), &lease.Lease{Metadata: apiclient.ObjectMeta{Name: "ops"},
		Spec: lease.Spec{HolderIdentity: "other", LeaseDurationSeconds: 3600, RenewTime: lease.NewMicroTime(time.Now())}}, apiclient.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := controller.NewManager(client, controller.ManagerOptions{Log: slog.New(slog.DiscardHandler),
		LeaderElection: &leaderelection.Config{Member: lease.Member{Namespace: "default", Identity: "me"}, Name: "ops"}})
	if err != nil {
		t.Fatal(err)
	}
	hooks := webhook.New(m, webhook.Options{Addr: "127.0.0.1:0"})
	webhook.Validate(hooks, webhook.Hook{}, validateSite)
	if _, err := m.Ready(); err == nil || !strings.Contains(err.Error(), "webhooks: not serving yet") {
		t.Fatalf("Ready before Run: %v, want not ready for the webhooks", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	<-hooks.Started()
	if role, err := m.Ready(); err != nil || role != "standby" {
		t.Fatalf("Ready once serving: %q %v, want standby and ready", role, err)
	}
	v, _ := apiclient.NewTyped[webhook.ValidatingWebhookConfiguration](client).Get(ctx, "kubewire-webhooks")
	if v == nil || len(v.Webhooks) != 1 || !strings.HasPrefix(v.Webhooks[0].ClientConfig.URL, hooks.URL()+"/validate/") || len(v.Webhooks[0].ClientConfig.CABundle) == 0 {
		t.Fatalf("the configuration applied: %+v", v)
	}
	s := &served{Server: hooks, http: httpClientFor(t, hooks.CABundle())}
	if resp := s.review(t, "/validate/webhook-test.kubewire.io/v1/sites", admissionReview(t, webhook.Create, &Site{Spec: SiteSpec{Replicas: 11}}, nil)); resp.Allowed {
		t.Fatal("the standby replica's webhook allowed 11 replicas")
	}
}
