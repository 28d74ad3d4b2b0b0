package foo_test

import (
	"context"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/controller/foo"
)

// Every behaviour of the Foo controller on the in-memory API server.
func TestFoo_on_the_in_memory_server(t *testing.T) {
	srv := apitest.NewServer(nil)
	srv.CreateNamespaces("demo")
	t.Cleanup(srv.Close)
	c, err := srv.Client(apiclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Foos are served once their CRD is stored, as on a cluster.
	if err := foo.InstallCRD(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	scenario(t, c, "demo")
}
