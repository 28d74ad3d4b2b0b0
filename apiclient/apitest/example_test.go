package apitest_test

import (
	"context"
	"fmt"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
)

// A controller that applies what it wants on every reconcile: on the server,
// as on kube-apiserver, the first apply writes, the same one again changes
// nothing (same resourceVersion, no event), and a second manager that sets a
// field the first owns is refused, field by field, unless it forces.
func Example_applyTwice() {
	srv := apitest.NewServer(nil)
	defer srv.Close()
	c, err := srv.Client(apiclient.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	cms := c.Resource(apiclient.ConfigMaps).Namespace("default")
	cfg := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"web"},"data":{"mode":"fast"}}`)
	for range 2 {
		o, err := cms.Apply(ctx, cfg, apiclient.WriteOptions{FieldManager: "web-operator"})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println("applied: resourceVersion", o.Metadata.ResourceVersion)
	}
	other := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"web"},"data":{"mode":"slow"}}`)
	_, err = cms.Apply(ctx, other, apiclient.WriteOptions{FieldManager: "someone-else"})
	fmt.Println("someone else:", apiclient.IsConflict(err))
	o, _ := cms.Apply(ctx, other, apiclient.WriteOptions{FieldManager: "someone-else", Force: true})
	mode, _ := o.FieldString("data", "mode")
	fmt.Println("forced:", mode, "at resourceVersion", o.Metadata.ResourceVersion)
	// Output:
	// applied: resourceVersion 2
	// applied: resourceVersion 2
	// someone else: true
	// forced: slow at resourceVersion 3
}
