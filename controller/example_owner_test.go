package controller_test

import (
	"fmt"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller"
)

// exampleFoo is a custom resource of the Examples' own: a TypedObject.
type exampleFoo struct {
	apiclient.TypeMeta
	apiclient.ObjectMeta `json:"metadata"`
}

func (*exampleFoo) Resource() apiclient.Resource {
	return apiclient.Resource{Group: "samplecontroller.k8s.io", Version: "v1alpha1", Name: "foos", Kind: "Foo", Namespaced: true}
}

// A Foo's Deployment is made with the Foo as its controller owner; a Deployment
// someone else made is not the Foo's.
func ExampleChildOf() {
	foo := &exampleFoo{ObjectMeta: apiclient.ObjectMeta{Name: "example-foo", Namespace: "default", UID: "8c3ff2d4"}}
	meta := controller.ChildOf(foo, "example-foo-web")
	ref := meta.OwnerReferences[0]
	fmt.Println(meta.Namespace, meta.Name)
	fmt.Println(ref.APIVersion, ref.Kind, ref.Name, ref.UID, *ref.Controller, *ref.BlockOwnerDeletion)
	fmt.Println(controller.IsControlledBy(&meta, foo))

	someoneElses := apiclient.ObjectMeta{Name: "example-foo-web", Namespace: "default"}
	fmt.Println(controller.IsControlledBy(&someoneElses, foo))
	// Output:
	// default example-foo-web
	// samplecontroller.k8s.io/v1alpha1 Foo example-foo 8c3ff2d4 true true
	// true
	// false
}

// A controller that writes its object's status watches it with
// GenerationChanged: its own status writes do not wake it.
func ExampleGenerationChanged() {
	old := &apiclient.Object{Metadata: apiclient.ObjectMeta{Name: "web", ResourceVersion: "10", Generation: 3}}
	statusWritten := &apiclient.Object{Metadata: apiclient.ObjectMeta{Name: "web", ResourceVersion: "11", Generation: 3}}
	specChanged := &apiclient.Object{Metadata: apiclient.ObjectMeta{Name: "web", ResourceVersion: "12", Generation: 4}}
	fmt.Println(controller.GenerationChanged(old, statusWritten), controller.GenerationChanged(statusWritten, specChanged))
	p := controller.Or(controller.GenerationChanged, controller.LabelsChanged)
	fmt.Println(p(old, old)) // a resync
	// Output:
	// false true
	// false
}
