package webhook_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/builtin"
	"github.com/kubewire/kubewire/apiclient/realtest"
	"github.com/kubewire/kubewire/controller/crd"
	"github.com/kubewire/kubewire/controller/webhook"
)

// These tests have kube-apiserver, on loopback, call webhooks served here at
// https://127.0.0.1:PORT (a url clientConfig, the caBundle the Server's CA).
// Every webhook is scoped by an objectSelector on a label only the test's
// own objects carry, and its configurations are deleted when the test ends,
// failed or not: a webhook whose failurePolicy is Fail and whose server is
// gone refuses every write it selects.

// siteCRD is the CRD of Site (v1, stored) and SiteV2, installed on the
// server with no conversion: a run that died with the conversion webhook set
// leaves the next one a clean start.
func siteCRD(t *testing.T, client *apiclient.Client) *crd.CustomResourceDefinition {
	t.Helper()
	c := crd.MustNew(crd.Options{Storage: "v1"}, new(Site), new(SiteV2))
	c.Spec.Conversion = &crd.Conversion{Strategy: "None"}
	if err := crd.Install(context.Background(), client, c, crd.InstallOptions{FieldManager: "webhook-test"}); err != nil {
		t.Fatal(err)
	}
	return c
}

// run runs a Server on the real API server until stop is called or the test
// ends, and deletes what it applied when the test ends.
func run(t *testing.T, client *apiclient.Client, opts webhook.Options, register func(*webhook.Server)) (s *webhook.Server, stop func()) {
	t.Helper()
	opts.Addr = "127.0.0.1:0"
	opts.Log = slog.New(slog.DiscardHandler)
	s = webhook.NewServer(client, opts)
	register(s)
	t.Cleanup(func() {
		if err := s.Uninstall(context.Background()); err != nil {
			t.Errorf("Uninstall: %v", err)
		}
		_ = client.Resource(apiclient.Secrets).Namespace(opts.SecretNamespace).Delete(context.Background(), opts.Name+"-tls", apiclient.DeleteOptions{})
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Run: %v", err)
			}
		}
	}
	t.Cleanup(stop)
	select {
	case <-s.Started():
	case err := <-done:
		stopped = true
		t.Fatalf("Run: %v", err)
	}
	return s, stop
}

// eventually retries a write while the API server has not yet seen the
// configuration just applied (its webhook informer lags the write by a few
// milliseconds): until want(err) holds, for at most ten seconds.
func eventually(t *testing.T, what string, try func() error, want func(error) bool) error {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := try()
		if want(err) {
			return err
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: after 10s still %v", what, err)
		}
		<-time.After(50 * time.Millisecond)
	}
}

func testSite(ns, name, label string, replicas int32) *Site {
	s := &Site{ObjectMeta: apiclient.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"kubewire-webhook-test": label}}}
	s.Spec.Replicas = replicas
	return s
}

func TestIntegration_the_API_server_refuses_and_defaults_through_the_webhooks(t *testing.T) {
	client, _ := realtest.Client(t, apiclient.Options{})
	siteCRD(t, client)
	ns := realtest.Namespace(t, client, "webhook")
	label := realtest.Name("admit")
	only := &builtin.LabelSelector{MatchLabels: map[string]string{"kubewire-webhook-test": label}}
	run(t, client, webhook.Options{Name: label, SecretNamespace: ns}, func(s *webhook.Server) {
		webhook.Validate(s, webhook.Hook{ObjectSelector: only}, validateSite)
		webhook.Default(s, webhook.Hook{ObjectSelector: only}, defaultSite)
	})
	sites := apiclient.NewTyped[Site](client).Namespace(ns)
	ctx := context.Background()

	err := eventually(t, "a create over 10 replicas", func() error {
		_, err := sites.Create(ctx, testSite(ns, "big", label, 11), apiclient.WriteOptions{})
		return err
	}, func(err error) bool { return err != nil })
	if !strings.Contains(err.Error(), "replicas 11 is over 10") || apiclient.ReasonOf(err) != "Invalid" {
		t.Fatalf("a create over 10 replicas: %v, want refused with the validator's message and 422", err)
	}

	got, err := sites.Create(ctx, testSite(ns, "small", label, 2), apiclient.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.Image != "nginx:1.27" || got.Spec.Tier != "web" || got.Labels["example.com/defaulted"] != "true" {
		t.Fatalf("the mutating webhook's defaults are not in what was stored: %+v", got)
	}
	got.Spec.Tier = "batch"
	if _, err := sites.Update(ctx, got, apiclient.WriteOptions{}); err == nil || !strings.Contains(err.Error(), "spec.tier cannot change") {
		t.Fatalf("an update changing spec.tier: %v, want refused", err)
	}

	// An object without the label is not sent to the webhooks at all.
	plain := testSite(ns, "unlabelled", "", 11)
	plain.Labels = nil
	if _, err := sites.Create(ctx, plain, apiclient.WriteOptions{}); err != nil {
		t.Fatalf("an object the selector does not pick: %v", err)
	}
}

// While the webhook is down, the API server does what failurePolicy says:
// Fail refuses the write with its own message, Ignore admits it.
func TestIntegration_failurePolicy_is_honoured_while_the_webhook_is_down(t *testing.T) {
	client, _ := realtest.Client(t, apiclient.Options{})
	siteCRD(t, client)
	ns := realtest.Namespace(t, client, "webhook")
	sites := apiclient.NewTyped[Site](client).Namespace(ns)
	ctx := context.Background()
	for _, policy := range []webhook.FailurePolicy{webhook.Fail, webhook.Ignore} {
		t.Run(string(policy), func(t *testing.T) {
			label := realtest.Name("down")
			only := &builtin.LabelSelector{MatchLabels: map[string]string{"kubewire-webhook-test": label}}
			_, stop := run(t, client, webhook.Options{Name: label, SecretNamespace: ns}, func(s *webhook.Server) {
				webhook.Validate(s, webhook.Hook{ObjectSelector: only, FailurePolicy: policy, TimeoutSeconds: 2}, validateSite)
			})
			eventually(t, "the webhook in place", func() error {
				_, err := sites.Create(ctx, testSite(ns, realtest.Name("big"), label, 11), apiclient.WriteOptions{})
				return err
			}, func(err error) bool { return err != nil && strings.Contains(err.Error(), "over 10") })
			stop()
			_, err := sites.Create(ctx, testSite(ns, realtest.Name("down"), label, 11), apiclient.WriteOptions{})
			switch policy {
			case webhook.Fail:
				if err == nil || !strings.Contains(err.Error(), "failed calling webhook") {
					t.Fatalf("a create while the webhook is down, failurePolicy Fail: %v, want the server's refusal", err)
				}
			case webhook.Ignore:
				if err != nil {
					t.Fatalf("a create while the webhook is down, failurePolicy Ignore: %v, want it admitted", err)
				}
			}
		})
	}
}

// A v1 object read as v2 and written back as v1, each step through the
// conversion webhook: what v1 cannot say waits in an annotation, and
// nothing is lost.
func TestIntegration_the_API_server_converts_through_the_webhook(t *testing.T) {
	client, _ := realtest.Client(t, apiclient.Options{})
	c := siteCRD(t, client)
	ns := realtest.Namespace(t, client, "webhook")
	name := realtest.Name("convert")
	run(t, client, webhook.Options{Name: name, SecretNamespace: ns}, func(s *webhook.Server) {
		webhook.Convert(s, c, webhook.Spoke(siteV1ToV2, siteV2ToV1))
	})
	ctx := context.Background()
	v1 := apiclient.NewTyped[Site](client).Namespace(ns)
	v2 := apiclient.NewTyped[SiteV2](client).Namespace(ns)
	created, err := v1.Create(ctx, &Site{ObjectMeta: apiclient.ObjectMeta{Name: "web", Namespace: ns}, Spec: SiteSpec{Image: "nginx:1.27", Replicas: 2, Tier: "web"}}, apiclient.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}

	var read *SiteV2
	eventually(t, "the v1 object read as v2", func() error {
		read, err = v2.Get(ctx, "web")
		if err == nil && len(read.Spec.Containers) == 0 {
			return fmt.Errorf("read as v2 without containers (the server still converts by apiVersion alone): %+v", read.Spec)
		}
		return err
	}, func(err error) bool { return err == nil })
	if got, want := fmt.Sprint(read.Spec.Containers), "[{main nginx:1.27}]"; got != want || read.Spec.Replicas != 2 || read.APIVersion != SitesV2.GroupVersion() {
		t.Fatalf("read as v2: %s %v, want %s", read.APIVersion, read.Spec, want)
	}

	read.Spec.Containers = append(read.Spec.Containers, Container{Name: "sidecar", Image: "envoy:1"})
	if _, err := v2.Update(ctx, read, apiclient.WriteOptions{}); err != nil {
		t.Fatalf("write as v2: %v", err)
	}
	back, err := v1.Get(ctx, "web")
	if err != nil {
		t.Fatal(err)
	}
	if back.Spec != created.Spec || !strings.Contains(back.Annotations[moreContainers], "sidecar") {
		t.Fatalf("read as v1: %+v %v, want %+v and the sidecar kept in %s", back.Spec, back.Annotations, created.Spec, moreContainers)
	}
	back.Spec.Replicas = 3
	if _, err := v1.Update(ctx, back, apiclient.WriteOptions{}); err != nil {
		t.Fatalf("write back as v1: %v", err)
	}
	again, err := v2.Get(ctx, "web")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(again.Spec.Containers), "[{main nginx:1.27} {sidecar envoy:1}]"; got != want || again.Spec.Replicas != 3 {
		t.Fatalf("read as v2 after the v1 write: %v replicas %d, want %s replicas 3", got, again.Spec.Replicas, want)
	}
}
