package foo_test

import (
	"context"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/realtest"
	"github.com/kubewire/kubewire/controller/foo"
)

// Every behaviour of the Foo controller on a real kube-apiserver, with leader
// election and two workers. The CRD is installed as `run foo --install-crd`
// does, and left installed (it is cluster-wide; the next run finds it).
func TestIntegration_foo_on_a_real_server(t *testing.T) {
	c, _ := realtest.Client(t, apiclient.Options{})
	if err := foo.InstallCRD(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	scenario(t, c, realtest.Namespace(t, c, "foo"))
}
