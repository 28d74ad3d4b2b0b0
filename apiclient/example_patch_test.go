package apiclient_test

import (
	"context"
	"fmt"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/clock"
)

// Every write takes a value of your own, as well as JSON bytes: Create the
// object from a struct, then Patch it with a struct that holds only what
// changes. A merge patch is the part of the object to change, so the struct
// for it declares that part and omits the rest (omitempty).
func ExampleResourceClient_Patch() {
	srv := apitest.NewServer(clock.NewFake())
	srv.CreateNamespaces("demo")
	defer srv.Close()
	client, _ := srv.Client(apiclient.Options{})
	cms := client.Resource(apiclient.ConfigMaps).Namespace("demo")
	ctx := context.Background()

	type configMap struct {
		Metadata apiclient.ObjectMeta `json:"metadata"`
		Data     map[string]string    `json:"data,omitempty"`
	}
	created, err := cms.Create(ctx, configMap{Metadata: apiclient.ObjectMeta{Name: "settings"}, Data: map[string]string{"mode": "fast"}}, apiclient.WriteOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	type dataPatch struct {
		Data map[string]string `json:"data"`
	}
	patched, err := cms.Patch(ctx, "settings", apiclient.MergePatch, dataPatch{Data: map[string]string{"mode": "safe", "retries": "3"}}, apiclient.WriteOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	before, _ := created.FieldString("data", "mode")
	mode, _ := patched.FieldString("data", "mode")
	retries, _ := patched.FieldString("data", "retries")
	fmt.Println(before, "→", mode, "retries", retries)
	// Output: fast → safe retries 3
}
