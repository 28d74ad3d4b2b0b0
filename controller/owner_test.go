package controller_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller"
)

var fooResource = apiclient.Resource{Group: "samplecontroller.k8s.io", Version: "v1alpha1", Name: "foos", Kind: "Foo", Namespaced: true}

func TestSetControllerReference(t *testing.T) {
	foo := &apiclient.ObjectMeta{Name: "example", Namespace: "demo", UID: "uid-foo"}
	child := &apiclient.ObjectMeta{Name: "web", Namespace: "demo",
		OwnerReferences: []apiclient.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "settings", UID: "uid-cm"}}}
	must(t, controller.SetControllerReference(child, fooResource, foo))
	must(t, controller.SetControllerReference(child, fooResource, foo)) // idempotent
	if n := len(child.OwnerReferences); n != 2 {
		t.Fatalf("%d owner references, want the ConfigMap's kept and one for the Foo", n)
	}
	ref := child.OwnerReferences[1]
	if ref.APIVersion != "samplecontroller.k8s.io/v1alpha1" || ref.Kind != "Foo" || ref.Name != "example" || ref.UID != "uid-foo" ||
		ref.Controller == nil || !*ref.Controller || ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
		t.Fatalf("owner reference %+v", ref)
	}
	if !controller.IsControlledBy(child, foo) {
		t.Fatal("IsControlledBy: false after SetControllerReference")
	}

	other := &apiclient.ObjectMeta{Name: "example", Namespace: "demo", UID: "uid-new-foo"} // same name, another object
	var owned *controller.AlreadyOwnedError
	if err := controller.SetControllerReference(child, fooResource, other); !errors.As(err, &owned) || owned.Owner.UID != "uid-foo" {
		t.Fatalf("adopting a child another owner controls: %v, want *AlreadyOwnedError naming uid-foo", err)
	}
	if controller.IsControlledBy(child, other) {
		t.Fatal("IsControlledBy matched by name; it must match by uid")
	}

	for _, tc := range []struct {
		what  string
		child apiclient.ObjectMeta
		owner apiclient.ObjectMeta
		want  string
	}{
		{"another namespace", apiclient.ObjectMeta{Name: "c", Namespace: "a"}, apiclient.ObjectMeta{Name: "o", Namespace: "b", UID: "u"}, "another namespace"},
		{"a cluster-scoped child", apiclient.ObjectMeta{Name: "c"}, apiclient.ObjectMeta{Name: "o", Namespace: "b", UID: "u"}, "cluster-scoped"},
		{"an owner never stored", apiclient.ObjectMeta{Name: "c", Namespace: "a"}, apiclient.ObjectMeta{Name: "o", Namespace: "a"}, "no name or uid"},
	} {
		err := controller.SetControllerReference(&tc.child, fooResource, &tc.owner)
		if err == nil || !strings.Contains(err.Error(), tc.want) || len(tc.child.OwnerReferences) != 0 {
			t.Errorf("%s: %v, refs %v; want an error about %q and no reference", tc.what, err, tc.child.OwnerReferences, tc.want)
		}
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
		want [5]bool // spec, label, annotation, status-only, resync
	}{
		{"GenerationChanged", controller.GenerationChanged, [5]bool{true, false, false, false, false}},
		{"LabelsChanged", controller.LabelsChanged, [5]bool{false, true, false, false, false}},
		{"AnnotationsChanged", controller.AnnotationsChanged, [5]bool{false, false, true, false, false}},
		{"ResourceVersionChanged", controller.ResourceVersionChanged, [5]bool{true, true, true, true, false}},
		{"Or(Generation, Labels)", controller.Or(controller.GenerationChanged, controller.LabelsChanged), [5]bool{true, true, false, false, false}},
		{"And(RV, Not(Generation))", controller.And(controller.ResourceVersionChanged, controller.Not(controller.GenerationChanged)), [5]bool{false, true, true, true, false}},
		{"And()", controller.And(), [5]bool{true, true, true, true, true}},
	} {
		for i, new := range []*apiclient.Object{spec, label, note, status, old} {
			if got := tc.p(old, new); got != tc.want[i] {
				t.Errorf("%s on update %d: %v, want %v", tc.name, i, got, tc.want[i])
			}
		}
	}
}
