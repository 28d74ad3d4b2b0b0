package apiclient_test

import (
	"context"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/realtest"
)

// A metadata-only client gets PartialObjectMetadata on Get, List and Watch: the
// labels are there, the data is not. The same spec runs on the in-memory server
// and, with KUBEWIRE_TEST_KUBECONFIG, on the real one, so the fake cannot drift
// from what kube-apiserver does.
func TestMetadataOnly_reads_carry_metadata_and_no_data(t *testing.T) {
	s := apitest.NewServer(nil)
	t.Cleanup(s.Close)
	c, err := s.Client(apiclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	metadataOnlySpec(t, c, "default")
}

func TestIntegration_metadata_only_reads_carry_metadata_and_no_data(t *testing.T) {
	c := integrationClient(t, "")
	metadataOnlySpec(t, c, realtest.Namespace(t, c, "kubewire-meta"))
}

func metadataOnlySpec(t *testing.T, c *apiclient.Client, ns string) {
	ctx := context.Background()
	cms := c.Resource(apiclient.ConfigMaps).Namespace(ns)
	if _, err := cms.Create(ctx, []byte(`{"metadata":{"name":"one","labels":{"app":"web"}},"data":{"big":"not in metadata"}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	meta := cms.MetadataOnly()
	check := func(how string, o *apiclient.Object) {
		t.Helper()
		if o.Kind != "PartialObjectMetadata" || o.APIVersion != "meta.k8s.io/v1" {
			t.Errorf("%s: kind %q apiVersion %q, want PartialObjectMetadata meta.k8s.io/v1", how, o.Kind, o.APIVersion)
		}
		if o.Metadata.Name != "one" || o.Metadata.Labels["app"] != "web" || o.Metadata.UID == "" {
			t.Errorf("%s: metadata %+v", how, o.Metadata)
		}
		if _, ok := o.Field("data"); ok {
			t.Errorf("%s: the object has data: %s", how, o.Raw())
		}
	}

	got, err := meta.Get(ctx, "one")
	if err != nil {
		t.Fatal(err)
	}
	check("get", got)

	list, err := meta.List(ctx, apiclient.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if list.Kind != "PartialObjectMetadataList" || len(list.Items) != 1 {
		t.Fatalf("list: kind %q with %d items, want PartialObjectMetadataList with 1", list.Kind, len(list.Items))
	}
	check("list", list.Items[0])

	w, err := meta.Watch(ctx, apiclient.WatchOptions{ListOptions: apiclient.ListOptions{ResourceVersion: list.ResourceVersion}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := cms.Patch(ctx, "one", apiclient.MergePatch, []byte(`{"data":{"big":"changed"}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	ev, err := w.Next()
	if err != nil {
		t.Fatal(err)
	}
	if ev.Type != apiclient.Modified {
		t.Fatalf("watch: %s, want MODIFIED", ev.Type)
	}
	check("watch", ev.Object)
}
