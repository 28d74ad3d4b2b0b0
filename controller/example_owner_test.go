package controller_test

import (
	"fmt"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller"
)

// A Foo's Deployment carries a controller reference to it, and a change to the
// Deployment is mapped back to the Foo's Request.
func ExampleSetControllerReference() {
	foos := apiclient.Resource{Group: "samplecontroller.k8s.io", Version: "v1alpha1", Name: "foos", Kind: "Foo", Namespaced: true}
	foo := apiclient.ObjectMeta{Name: "example-foo", Namespace: "default", UID: "8c3ff2d4"}
	deployment := &apiclient.Object{Metadata: apiclient.ObjectMeta{Name: "example-foo", Namespace: "default"}}
	if err := controller.SetControllerReference(&deployment.Metadata, foos, &foo); err != nil {
		fmt.Println(err)
	}
	ref := deployment.Metadata.OwnerReferences[0]
	fmt.Println(ref.APIVersion, ref.Kind, ref.Name, *ref.Controller, *ref.BlockOwnerDeletion)
	fmt.Println(controller.ToOwner(foos)(deployment))

	someoneElse := apiclient.ObjectMeta{Name: "other", Namespace: "default", UID: "0a77e1c9"}
	fmt.Println(controller.SetControllerReference(&deployment.Metadata, foos, &someoneElse))
	// Output:
	// samplecontroller.k8s.io/v1alpha1 Foo example-foo true true
	// [default/example-foo]
	// default/example-foo is already controlled by Foo example-foo (uid 8c3ff2d4)
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
