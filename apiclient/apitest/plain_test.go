package apitest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
)

// NewPlainServer is NewServer without TLS: an http:// URL on loopback, a
// Config with no CA, and the same live objects and watches behind it.
func TestPlainServer_serves_plain_HTTP_on_loopback(t *testing.T) {
	srv := withDemo(t, apitest.NewPlainServer(nil))
	defer srv.Close()
	if got, want := srv.URL, "http://127.0.0.1:"; !strings.HasPrefix(got, want) {
		t.Fatalf("URL = %q, want it to start with %q", got, want)
	}
	cfg := srv.Config()
	if got, want := cfg.Server, srv.URL; got != want {
		t.Fatalf("Config().Server = %q, want %q", got, want)
	}
	if got := cfg.TLS.CAData; len(got) != 0 {
		t.Fatalf("Config().TLS.CAData = %q, want none", got)
	}
	// A client built from the Config alone, with no transport of apitest's:
	// what a program that only has the Config reaches the server with.
	c, err := apiclient.New(cfg, apiclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cms := c.Resource(apiclient.ConfigMaps).Namespace("demo")
	if _, err := cms.Create(ctx, []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"web"},"data":{"mode":"fast"}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	o, err := cms.Get(ctx, "web")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := o.Metadata.ResourceVersion, "2"; got != want {
		t.Fatalf("resourceVersion = %q, want %q", got, want)
	}
	// srv.Client goes through srv.Transport, as with NewServer.
	c2, err := srv.Client(apiclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c2.Resource(apiclient.ConfigMaps).Namespace("demo").Get(ctx, "web"); err != nil {
		t.Fatal(err)
	}
}

// NewServer keeps TLS: its URL is https:// and its Config carries the CA a
// client needs to trust it.
func TestServer_serves_TLS_with_its_CA_in_the_Config(t *testing.T) {
	srv := withDemo(t, apitest.NewServer(nil))
	defer srv.Close()
	if got, want := srv.URL, "https://127.0.0.1:"; !strings.HasPrefix(got, want) {
		t.Fatalf("URL = %q, want it to start with %q", got, want)
	}
	c, err := apiclient.New(srv.Config(), apiclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Resource(apiclient.ConfigMaps).Namespace("demo").List(context.Background(), apiclient.ListOptions{}); err != nil {
		t.Fatal(err)
	}
}

// NewPlainServer calls no webhooks: a validating webhook that refuses
// everything (down, failurePolicy Fail) refuses a create on NewServer and not
// on NewPlainServer, which stores its configuration and leaves the calling
// out of the programs that start only plain servers (issue 42).
func TestPlainServer_calls_no_webhooks(t *testing.T) {
	hooks := apiclient.Resource{Group: "admissionregistration.k8s.io", Version: "v1", Name: "validatingwebhookconfigurations", Kind: "ValidatingWebhookConfiguration"}
	config := `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration","metadata":{"name":"refuse"},
		"webhooks":[{"name":"refuse.example.com","admissionReviewVersions":["v1"],"sideEffects":"None","failurePolicy":"Fail",
		"clientConfig":{"url":"https://127.0.0.1:1/refuse"},
		"rules":[{"operations":["CREATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["configmaps"]}]}]}`
	for _, c := range []struct {
		name    string
		srv     *apitest.Server
		refused bool
	}{
		{"NewServer", withDemo(t, apitest.NewServer(nil)), true},
		{"NewPlainServer", withDemo(t, apitest.NewPlainServer(nil)), false},
	} {
		defer c.srv.Close()
		if _, err := c.srv.Add(hooks, config); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		cl, err := c.srv.Client(apiclient.Options{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = cl.Resource(apiclient.ConfigMaps).Namespace("demo").Create(context.Background(),
			[]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"web"}}`), apiclient.WriteOptions{})
		if got := err != nil; got != c.refused {
			t.Errorf("%s: a create under a webhook that is down: %v; want refused %v", c.name, err, c.refused)
		}
	}
}
