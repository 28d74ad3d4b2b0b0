package cli_test

import (
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/realtest"
)

// realCluster is the setup of every integration test here: the real API server
// named by KUBEWIRE_TEST_KUBECONFIG (the test is skipped without it), a client for
// it, and a fresh namespace named prefix-RANDOM, deleted when the test ends. It
// returns the client, the kubeconfig path (for the command's own loading) and the
// namespace.
func realCluster(t *testing.T, prefix string) (*apiclient.Client, string, string) {
	t.Helper()
	c, path := realtest.Client(t, apiclient.Options{QPS: -1})
	return c, path, realtest.Namespace(t, c, prefix)
}
