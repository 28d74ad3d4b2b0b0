package informer_test

import (
	"context"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/controller/informer"
)

// TestNew_without_a_Source_and_nothing_to_build_one_from_fails_in_Run: no panic;
// Run says what is missing.
func TestNew_without_a_Source_and_nothing_to_build_one_from_fails_in_Run(t *testing.T) {
	inf := informer.New(informer.Options{Name: "pods"})
	err := inf.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "no Source") {
		t.Fatalf("Run returned %v, want an error that says there is no Source", err)
	}
	if inf.HasSynced() {
		t.Fatal("synced without a source")
	}
}

// TestNew_without_a_Source_lists_and_watches_Client_and_Resource: the default Source
// is a Reflector on the Options' client, resource, namespace and selectors.
func TestNew_without_a_Source_lists_and_watches_Client_and_Resource(t *testing.T) {
	inf := runOnServer(t, informer.Options{Resource: apiclient.Pods, Namespace: "demo"},
		`{"metadata":{"name":"a","namespace":"demo"}}`)
	if _, err := inf.Get("demo", "a"); err != nil || inf.Len() != 1 {
		t.Fatalf("cache holds %d objects, want demo/a", inf.Len())
	}
}

// TestNew_MetadataOnly_caches_PartialObjectMetadata: with MetadataOnly the cache
// holds each object's metadata and nothing of its spec.
func TestNew_MetadataOnly_caches_PartialObjectMetadata(t *testing.T) {
	inf := runOnServer(t, informer.Options{Resource: apiclient.Pods, Namespace: "demo", MetadataOnly: true},
		`{"metadata":{"name":"a","namespace":"demo"},"spec":{"nodeName":"n1"}}`)
	o, err := inf.Get("demo", "a")
	if err != nil {
		t.Fatal("demo/a is not cached")
	}
	if _, hasSpec := o.Field("spec"); o.Kind != "PartialObjectMetadata" || hasSpec || o.Metadata.Name != "a" {
		t.Fatalf("cached %s, want PartialObjectMetadata of a without spec", o.Raw())
	}
}

// runOnServer creates objects (JSON, of opts.Resource) on an in-memory API server,
// runs an informer built from opts with that server's client and no Source, and
// returns it synced. The informer stops, and Run's error is checked, at the end
// of the test.
func runOnServer(t *testing.T, opts informer.Options, objects ...string) *informer.Informer {
	t.Helper()
	srv := apitest.NewServer(nil)
	srv.CreateNamespaces("demo")
	t.Cleanup(srv.Close)
	c, err := srv.Client(apiclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	for _, o := range objects {
		if _, err := c.Resource(opts.Resource).Create(ctx, []byte(o), apiclient.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	opts.Client, opts.Logger = c, quietLog
	inf := informer.New(opts)
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	if !inf.WaitForCacheSync(ctx) {
		t.Fatal("never synced")
	}
	return inf
}
