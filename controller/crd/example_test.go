package crd_test

import (
	"encoding/json"
	"fmt"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/crd"
)

// Site is a custom resource: a Go type that names its resource.
type Site struct {
	apiclient.TypeMeta
	apiclient.ObjectMeta `json:"metadata"`
	Spec                 struct {
		Image    string `json:"image,omitempty" kubewire:"default=nginx:1.27"`
		Replicas int32  `json:"replicas" kubewire:"min=0,max=10"`
		Tier     string `json:"tier,omitempty" kubewire:"enum=web|batch,description='Where it runs, web or batch.'"`
	} `json:"spec"`
	Status struct {
		AvailableReplicas int32 `json:"availableReplicas,omitempty"`
	} `json:"status,omitempty"`
}

var Sites = apiclient.Resource{Group: "demo.example.com", Version: "v1", Name: "sites", Kind: "Site", Namespaced: true}

func (*Site) Resource() apiclient.Resource { return Sites }

// The CRD of Site, its schema read from the Go type and its tags. Installing
// it is one more call: crd.Install(ctx, client, c, crd.InstallOptions{}).
func ExampleNew() {
	c, err := crd.New(crd.Options{Columns: []crd.Column{{Name: "Available", JSONPath: ".status.availableReplicas"}}}, new(Site))
	if err != nil {
		panic(err)
	}
	v := c.Spec.Versions[0]
	spec, _ := json.Marshal(v.Schema.OpenAPIV3Schema.Properties["spec"])
	fmt.Println(c.Name, c.Spec.Scope, v.Name, "storage:", v.Storage)
	fmt.Println("status subresource:", v.Subresources.Status != nil, "column type:", v.AdditionalPrinterColumns[0].Type)
	fmt.Println(string(spec))
	// Output:
	// sites.demo.example.com Namespaced v1 storage: true
	// status subresource: true column type: integer
	// {"type":"object","properties":{"image":{"type":"string","default":"nginx:1.27"},"replicas":{"type":"integer","format":"int32","minimum":0,"maximum":10},"tier":{"type":"string","description":"Where it runs, web or batch.","enum":["web","batch"]}},"required":["replicas"]}
}
