package foo_test

import (
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
)

// Every behaviour of the Foo controller on the in-memory API server.
func TestFoo_on_the_in_memory_server(t *testing.T) {
	srv := apitest.NewServer(nil)
	t.Cleanup(srv.Close)
	c, err := srv.Client(apiclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	scenario(t, c, "demo")
}
