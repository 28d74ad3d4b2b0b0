package apiclient_test

import (
	"context"
	"fmt"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/clock"
)

// configMap is what this manager decides of a ConfigMap: nothing else is sent.
type configMap struct {
	apiclient.TypeMeta
	apiclient.ObjectMeta `json:"metadata"`
	Data                 map[string]string `json:"data"`
}

// Resource links configMap to the resource it stands for.
func (*configMap) Resource() apiclient.Resource { return apiclient.ConfigMaps }

// Server-side apply of a typed value: the first apply creates the object, the
// next one changes it; either way the value sent is the manager's whole intent.
func ExampleTyped_Apply() {
	srv := apitest.NewServer(clock.NewFake())
	srv.CreateNamespaces("demo")
	defer srv.Close()
	client, _ := srv.Client(apiclient.Options{})
	cms := apiclient.NewTyped[configMap](client).Namespace("demo")

	// No apiVersion or kind to type: Typed fills them in from configMap's Resource.
	intent := &configMap{ObjectMeta: apiclient.ObjectMeta{Name: "settings"}, Data: map[string]string{"mode": "fast"}}
	opts := apiclient.WriteOptions{FieldManager: "my-controller", Force: true}
	created, _ := cms.Apply(context.Background(), intent, opts)
	intent.Data["mode"] = "safe"
	changed, _ := cms.Apply(context.Background(), intent, opts)
	fmt.Println(created.Data["mode"], "→", changed.Data["mode"])
	// Output: fast → safe
}
