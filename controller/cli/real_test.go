package cli_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/kubeconfig"
)

// realCluster is the setup of every integration test here: the real API server
// named by KUBEWIRE_TEST_KUBECONFIG (the test is skipped without it), a client for
// it, and a fresh namespace named prefix-RANDOM, deleted when the test ends. It
// returns the client, the kubeconfig path (for the command's own loading) and the
// namespace.
func realCluster(t *testing.T, prefix string) (*apiclient.Client, string, string) {
	t.Helper()
	path := os.Getenv("KUBEWIRE_TEST_KUBECONFIG")
	if path == "" {
		t.Skip("KUBEWIRE_TEST_KUBECONFIG is not set: no real API server to test against (.ci/run starts one)")
	}
	cfg, err := kubeconfig.Load(kubeconfig.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	c, err := apiclient.New(cfg, apiclient.Options{QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	ns := uniqueName(prefix)
	if _, err := c.Resource(apiclient.Namespaces).Create(context.Background(), []byte(`{"metadata":{"name":"`+ns+`"}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.Resource(apiclient.Namespaces).Delete(context.Background(), ns, apiclient.DeleteOptions{})
	})
	return c, path, ns
}

// uniqueName is prefix plus random hex: namespaces cannot be reused at once on a
// server without a namespace controller (they stay Terminating).
func uniqueName(prefix string) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return prefix + "-" + hex.EncodeToString(b)
}
