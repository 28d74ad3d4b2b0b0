package controller_test

import (
	"reflect"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller"
)

var fooResource = apiclient.Resource{Group: "samplecontroller.k8s.io", Version: "v1alpha1", Name: "foos", Kind: "Foo", Namespaced: true}

func TestChildOf_is_in_the_owners_namespace_controlled_by_it(t *testing.T) {
	foo := &exampleFoo{ObjectMeta: apiclient.ObjectMeta{Name: "example", Namespace: "demo", UID: "uid-foo"}}
	before := foo.ObjectMeta.DeepCopy()
	child := controller.ChildOf(foo, "web")
	if child.Name != "web" || child.Namespace != "demo" || len(child.OwnerReferences) != 1 {
		t.Fatalf("child %+v", child)
	}
	ref := child.OwnerReferences[0]
	if ref.APIVersion != "samplecontroller.k8s.io/v1alpha1" || ref.Kind != "Foo" || ref.Name != "example" || ref.UID != "uid-foo" ||
		ref.Controller == nil || !*ref.Controller || ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
		t.Fatalf("owner reference %+v", ref)
	}
	if !reflect.DeepEqual(foo.ObjectMeta, before) {
		t.Fatal("ChildOf changed the owner it was given")
	}
	if !controller.IsControlledBy(&child, foo) {
		t.Fatal("IsControlledBy: false for ChildOf's metadata")
	}
	other := &exampleFoo{ObjectMeta: apiclient.ObjectMeta{Name: "example", Namespace: "demo", UID: "uid-new-foo"}} // same name, another object
	if controller.IsControlledBy(&child, other) {
		t.Fatal("IsControlledBy matched by name; it must match by uid")
	}
}

func TestToOwner_maps_only_the_controller_of_that_group_and_kind(t *testing.T) {
	yes := true
	toFoo := controller.ToOwner(fooResource)
	for _, tc := range []struct {
		what string
		refs []apiclient.OwnerReference
		want []controller.Request
	}{
		{"controlled by a Foo", []apiclient.OwnerReference{{APIVersion: "samplecontroller.k8s.io/v1alpha1", Kind: "Foo", Name: "f", Controller: &yes}}, []controller.Request{{Namespace: "demo", Name: "f"}}},
		{"by a Foo of another version", []apiclient.OwnerReference{{APIVersion: "samplecontroller.k8s.io/v1", Kind: "Foo", Name: "f", Controller: &yes}}, []controller.Request{{Namespace: "demo", Name: "f"}}},
		{"owned but not controlled", []apiclient.OwnerReference{{APIVersion: "samplecontroller.k8s.io/v1alpha1", Kind: "Foo", Name: "f"}}, nil},
		{"by a Foo of another group", []apiclient.OwnerReference{{APIVersion: "example.com/v1", Kind: "Foo", Name: "f", Controller: &yes}}, nil},
		{"by a ReplicaSet", []apiclient.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "r", Controller: &yes}}, nil},
		{"by nothing", nil, nil},
	} {
		child := &apiclient.Object{Metadata: apiclient.ObjectMeta{Name: "web", Namespace: "demo", OwnerReferences: tc.refs}}
		got := toFoo(child)
		if len(got) != len(tc.want) || len(got) == 1 && got[0] != tc.want[0] {
			t.Errorf("%s: %v, want %v", tc.what, got, tc.want)
		}
	}
}

func TestPredicates(t *testing.T) {
	base := apiclient.ObjectMeta{Name: "x", ResourceVersion: "1", Generation: 1, Labels: map[string]string{"a": "1"}, Annotations: map[string]string{"n": "1"}}
	changed := func(f func(m *apiclient.ObjectMeta)) *apiclient.Object {
		m := base
		m.ResourceVersion = "2"
		f(&m)
		return &apiclient.Object{Metadata: m}
	}
	old := &apiclient.Object{Metadata: base}
	spec := changed(func(m *apiclient.ObjectMeta) { m.Generation = 2 })
	label := changed(func(m *apiclient.ObjectMeta) { m.Labels = map[string]string{"a": "2"} })
	note := changed(func(m *apiclient.ObjectMeta) { m.Annotations = nil })
	status := changed(func(*apiclient.ObjectMeta) {})
	for _, tc := range []struct {
		name string
		p    controller.Predicate
		want [4]bool // spec, label, annotation, status-only (a resync never reaches a predicate)
	}{
		{"GenerationChanged", controller.GenerationChanged, [4]bool{true, false, false, false}},
		{"LabelsChanged", controller.LabelsChanged, [4]bool{false, true, false, false}},
		{"AnnotationsChanged", controller.AnnotationsChanged, [4]bool{false, false, true, false}},
		{"Or(Generation, Labels)", controller.Or(controller.GenerationChanged, controller.LabelsChanged), [4]bool{true, true, false, false}},
		{"Not(Generation)", controller.Not(controller.GenerationChanged), [4]bool{false, true, true, true}},
		{"And(Not(Generation), Not(Labels))", controller.And(controller.Not(controller.GenerationChanged), controller.Not(controller.LabelsChanged)), [4]bool{false, false, true, true}},
		{"And()", controller.And(), [4]bool{true, true, true, true}},
	} {
		for i, new := range []*apiclient.Object{spec, label, note, status} {
			if got := tc.p(old, new); got != tc.want[i] {
				t.Errorf("%s on update %d: %v, want %v", tc.name, i, got, tc.want[i])
			}
		}
	}
}
