package webhook_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/builtin"
	"github.com/kubewire/kubewire/controller/crd"
	"github.com/kubewire/kubewire/controller/webhook"
)

// apitest calls the webhooks a Server applies, as kube-apiserver does: the
// scenarios of integration_test.go, with the codes and messages the real
// server answers, in a unit test.

// apitestWith is an apitest server holding Site's CRD, a client of it, and
// a webhook Server on it with what register adds, until the test ends.
func apitestWith(t *testing.T, opts webhook.Options, register func(*webhook.Server)) (*served, apiclient.Typed[Site]) {
	t.Helper()
	api, client := apitestClient(t)
	opts.SecretNamespace = "ops"
	s := serveOn(t, api, client, opts, register)
	return s, apiclient.NewTyped[Site](client).Namespace("demo")
}

func TestApitest_refuses_and_defaults_through_the_webhooks(t *testing.T) {
	only := &builtin.LabelSelector{MatchLabels: map[string]string{"kubewire-webhook-test": "admit"}}
	_, sites := apitestWith(t, webhook.Options{Name: "admit"}, func(s *webhook.Server) {
		webhook.Validate(s, webhook.Hook{ObjectSelector: only}, validateSite)
		webhook.Default(s, webhook.Hook{ObjectSelector: only}, defaultSite)
	})
	ctx := context.Background()

	_, err := sites.Create(ctx, testSite("demo", "big", "admit", 11), apiclient.WriteOptions{})
	if got, want := apiclient.ReasonOf(err), "Invalid"; got != want {
		t.Fatalf("a create over 10 replicas: %v, want refused, reason %s", err, want)
	}
	if got, want := err.Error(), `admission webhook "validate.sites.webhook-test.kubewire.io" denied the request: replicas 11 is over 10`; !strings.Contains(got, want) {
		t.Fatalf("a create over 10 replicas: %q, want it to say %q", got, want)
	}
	if _, err := sites.Get(ctx, "big"); !apiclient.IsNotFound(err) {
		t.Fatalf("the refused object: %v, want not found", err)
	}

	got, err := sites.Create(ctx, testSite("demo", "small", "admit", 2), apiclient.WriteOptions{})
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
	if _, err := sites.Patch(ctx, "small", apiclient.MergePatch, []byte(`{"spec":{"replicas":12}}`), apiclient.WriteOptions{}); !strings.Contains(errString(err), "replicas 12 is over 10") {
		t.Fatalf("a merge patch to 12 replicas: %v, want refused", err)
	}

	// An object without the label is not sent to the webhooks at all.
	plain := testSite("demo", "unlabelled", "", 11)
	plain.Labels = nil
	stored, err := sites.Create(ctx, plain, apiclient.WriteOptions{})
	if err != nil {
		t.Fatalf("an object the selector does not pick: %v", err)
	}
	if stored.Spec.Image != "" {
		t.Fatalf("an object the selector does not pick was defaulted: %+v", stored.Spec)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// While the webhook is down, apitest does what failurePolicy says, as the
// real server: Fail refuses the write with the server's message, Ignore
// admits it.
func TestApitest_failurePolicy_is_honoured_while_the_webhook_is_down(t *testing.T) {
	for _, policy := range []webhook.FailurePolicy{webhook.Fail, webhook.Ignore} {
		t.Run(string(policy), func(t *testing.T) {
			_, client := apitestClient(t)
			only := &builtin.LabelSelector{MatchLabels: map[string]string{"kubewire-webhook-test": "down"}}
			_, stop := run(t, client, webhook.Options{Name: "down", SecretNamespace: "ops"}, func(s *webhook.Server) {
				webhook.Validate(s, webhook.Hook{ObjectSelector: only, FailurePolicy: policy, TimeoutSeconds: 2}, validateSite)
			})
			sites := apiclient.NewTyped[Site](client).Namespace("demo")
			ctx := context.Background()
			if _, err := sites.Create(ctx, testSite("demo", "big", "down", 11), apiclient.WriteOptions{}); !strings.Contains(errString(err), "over 10") {
				t.Fatalf("a create over 10 replicas while the webhook is up: %v, want refused", err)
			}
			stop()
			_, err := sites.Create(ctx, testSite("demo", "while-down", "down", 11), apiclient.WriteOptions{})
			switch policy {
			case webhook.Fail:
				if !strings.Contains(errString(err), `failed calling webhook "validate.sites.webhook-test.kubewire.io"`) || apiclient.ReasonOf(err) != "InternalError" {
					t.Fatalf("a create while the webhook is down, failurePolicy Fail: %v, want the server's refusal, 500 InternalError", err)
				}
			case webhook.Ignore:
				if err != nil {
					t.Fatalf("a create while the webhook is down, failurePolicy Ignore: %v, want it admitted", err)
				}
			}
		})
	}
}

// A webhook's warnings reach the client as Warning headers; a delete is
// sent with the object it deletes; a dry run reaches webhooks without side
// effects, and a refused one stores nothing.
func TestApitest_sends_warnings_deletes_and_dry_runs(t *testing.T) {
	var warnings []string
	api := apitest.NewServer(nil)
	api.CreateNamespaces("demo", "ops")
	t.Cleanup(api.Close)
	client, err := api.Client(apiclient.Options{OnWarning: func(text string) { warnings = append(warnings, text) }})
	if err != nil {
		t.Fatal(err)
	}
	addSiteCRD(t, api)
	serveOn(t, api, client, webhook.Options{Name: "more", SecretNamespace: "ops"}, func(s *webhook.Server) {
		webhook.Validate(s, webhook.Hook{Operations: []webhook.Operation{webhook.Create, webhook.Update, webhook.Delete}}, validateSite)
	})
	sites := apiclient.NewTyped[Site](client).Namespace("demo")
	ctx := context.Background()
	warnings = nil
	if _, err := sites.Create(ctx, testSite("demo", "costly", "x", 6), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(warnings, "|"), "replicas 6: more than 5 cost extra"; got != want {
		t.Fatalf("warnings: %q, want %q", got, want)
	}

	protected := testSite("demo", "keep", "x", 1)
	protected.Labels["protected"] = "true"
	if _, err := sites.Create(ctx, protected, apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := sites.Delete(ctx, "keep", apiclient.DeleteOptions{}); !strings.Contains(errString(err), `denied the request: site is protected`) || apiclient.ReasonOf(err) != "Forbidden" {
		t.Fatalf("deleting a protected site: %v, want refused, 403", err)
	}
	if _, err := sites.Get(ctx, "keep"); err != nil {
		t.Fatalf("the site whose delete was refused: %v", err)
	}

	if _, err := sites.Create(ctx, testSite("demo", "dry", "x", 11), apiclient.WriteOptions{DryRun: true}); !strings.Contains(errString(err), "replicas 11 is over 10") {
		t.Fatalf("a dry-run create over 10 replicas: %v, want refused by the webhook (sideEffects None)", err)
	}
	if _, err := sites.Apply(ctx, testSite("demo", "applied", "x", 12), apiclient.WriteOptions{FieldManager: "test", Force: true}); !strings.Contains(errString(err), "replicas 12 is over 10") {
		t.Fatalf("an apply that creates a site of 12 replicas: %v, want refused", err)
	}
}

// apitestClient is an apitest server holding Site's CRD, and a client of it.
func apitestClient(t *testing.T) (*apitest.Server, *apiclient.Client) {
	t.Helper()
	api := apitest.NewServer(nil)
	api.CreateNamespaces("demo", "ops")
	t.Cleanup(api.Close)
	client, err := api.Client(apiclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	addSiteCRD(t, api)
	return api, client
}

// addSiteCRD stores Site's CRD as it is (crd.Install would wait for
// conditions no controller of apitest's sets).
func addSiteCRD(t *testing.T, api *apitest.Server) {
	t.Helper()
	c := crd.MustNew(crd.Options{Storage: "v1"}, new(Site), new(SiteV2))
	c.Spec.Conversion = &crd.Conversion{Strategy: "None"}
	if _, err := api.Add(apiclient.CRDs, c); err != nil {
		t.Fatal(err)
	}
}

// A v1 object read back as v2 and written back as v1, each step through
// the conversion webhook, as in
// TestIntegration_the_API_server_converts_through_the_webhook.
func TestApitest_converts_through_the_webhook(t *testing.T) {
	api, client := apitestClient(t)
	c := crd.MustNew(crd.Options{Storage: "v1"}, new(Site), new(SiteV2))
	serveOn(t, api, client, webhook.Options{Name: "convert", SecretNamespace: "ops"}, func(s *webhook.Server) {
		webhook.Convert(s, c, webhook.Spoke(siteV1ToV2, siteV2ToV1))
	})
	ctx := context.Background()
	v1 := apiclient.NewTyped[Site](client).Namespace("demo")
	v2 := apiclient.NewTyped[SiteV2](client).Namespace("demo")
	watch, err := client.Resource(SitesV2).Namespace("demo").Watch(ctx, apiclient.WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Close()
	created, err := v1.Create(ctx, &Site{ObjectMeta: apiclient.ObjectMeta{Name: "web", Namespace: "demo"}, Spec: SiteSpec{Image: "nginx:1.27", Replicas: 2, Tier: "web"}}, apiclient.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}

	read, err := v2.Get(ctx, "web")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(read.Spec.Containers), "[{main nginx:1.27}]"; got != want || read.Spec.Replicas != 2 || read.APIVersion != SitesV2.GroupVersion() {
		t.Fatalf("read as v2: %s %v, want %s", read.APIVersion, read.Spec, want)
	}
	ev, err := watch.Next()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(ev.Type, " ", ev.Object.APIVersion), "ADDED "+SitesV2.GroupVersion(); got != want {
		t.Fatalf("the watch at v2 saw %s, want %s", got, want)
	}
	list, _, err := v2.List(ctx, apiclient.ListOptions{})
	if err != nil || len(list) != 1 || len(list[0].Spec.Containers) != 1 {
		t.Fatalf("list as v2: %v %+v, want the one site with its container", err, list)
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
	if _, err := v2.Patch(ctx, "web", apiclient.MergePatch, []byte(`{"spec":{"replicas":4}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatalf("a merge patch as v2: %v", err)
	}
	again, err := v2.Get(ctx, "web")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(again.Spec.Containers), "[{main nginx:1.27} {sidecar envoy:1}]"; got != want || again.Spec.Replicas != 4 {
		t.Fatalf("read as v2 after the v1 write and the v2 patch: %v replicas %d, want %s replicas 4", got, again.Spec.Replicas, want)
	}
}
