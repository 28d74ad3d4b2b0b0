package crd_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/realtest"
	"github.com/kubewire/kubewire/controller/crd"
)

// install installs c under a group of its own (so that parallel tests and
// runs do not meet), deletes it when the test ends, and returns the resource
// of its storage version.
func install(t *testing.T, client *apiclient.Client, c *crd.CustomResourceDefinition) apiclient.Resource {
	t.Helper()
	c.Spec.Group = realtest.Name("crd") + ".kubewire.example"
	c.Name = c.Spec.Names.Plural + "." + c.Spec.Group
	t.Cleanup(func() {
		_ = client.Resource(apiclient.CRDs).Delete(context.Background(), c.Name, apiclient.DeleteOptions{})
	})
	if err := crd.Install(context.Background(), client, c, crd.InstallOptions{FieldManager: "crd-test"}); err != nil {
		t.Fatal(err)
	}
	res := apiclient.Resource{Group: c.Spec.Group, Name: c.Spec.Names.Plural, Kind: c.Spec.Names.Kind, Namespaced: true}
	for _, v := range c.Spec.Versions {
		if v.Storage {
			res.Version = v.Name
		}
	}
	return res
}

// The server takes the Widget CRD as built, and then does what its schema says:
// prunes what it does not declare, fills in its defaults, and refuses values
// outside its rules with a 422 whose causes name the field.
func TestIntegration_the_server_enforces_the_generated_schema(t *testing.T) {
	client, _ := realtest.Client(t, apiclient.Options{})
	ns := realtest.Namespace(t, client, "crd")
	res := install(t, client, widgetCRD(t))
	ctx := context.Background()
	widgets := client.Resource(res).Namespace(ns)
	create := func(name, spec string) (*apiclient.Object, error) {
		return widgets.Create(ctx, []byte(fmt.Sprintf(`{"apiVersion":%q,"kind":"Widget","metadata":{"name":%q},"spec":%s,"status":{"phase":"set on create"}}`,
			res.GroupVersion(), name, spec)), apiclient.WriteOptions{})
	}

	got, err := create("plain", `{"Untagged":"u","bogus":1,"timeout":null,"note":null,"config":{"any":{"thing":1}},
		"extra":[1,"two"],"ports":[{"name":"http","port":80}],"target":"50%","memory":"64Mi"}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path []string
		want any
		kept bool
	}{
		{[]string{"spec", "size"}, "medium", true},                // default
		{[]string{"spec", "replicas"}, "3", true},                 // default
		{[]string{"spec", "ports", "0", "protocol"}, "TCP", true}, // default in a list item
		{[]string{"spec", "bogus"}, nil, false},                   // pruned
		{[]string{"spec", "timeout"}, nil, false},                 // a null without nullable: pruned, not refused
		{[]string{"spec", "note"}, nil, true},                     // nullable: kept
		{[]string{"spec", "config", "any", "thing"}, "1", true},   // preserve-unknown-fields
		{[]string{"spec", "extra", "1"}, "two", true},             // json.RawMessage
		{[]string{"spec", "target"}, "50%", true},                 // int-or-string
		{[]string{"status", "phase"}, nil, false},                 // the status subresource: a create sets no status
	} {
		v, ok := got.Field(tc.path...)
		if ok != tc.kept || (tc.want != nil && fmt.Sprint(v) != fmt.Sprint(tc.want)) {
			t.Errorf("%s: got %v (present %v), want %v (present %v)", strings.Join(tc.path, "."), v, ok, tc.want, tc.kept)
		}
	}
	scale, err := widgets.Get(ctx, "plain", "scale")
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := scale.Field("spec", "replicas"); fmt.Sprint(v) != "3" {
		t.Errorf("scale subresource: spec.replicas %v, want 3", v)
	}

	for _, tc := range []struct {
		name, spec, field, says string
	}{
		{"below minimum", `{"Untagged":"u","replicas":0}`, "spec.replicas", "greater than or equal to 1"},
		{"above maximum", `{"Untagged":"u","replicas":11}`, "spec.replicas", "less than or equal to 10"},
		{"not in enum", `{"Untagged":"u","size":"huge"}`, "spec.size", "Unsupported value"},
		{"pattern", `{"Untagged":"u","name":"Not_A_Name"}`, "spec.name", "should match"},
		{"too long", `{"Untagged":"u","labels":{"a":"` + strings.Repeat("x", 64) + `"}}`, "spec.labels.a", "Too long"},
		{"required", `{}`, "spec.Untagged", "Required value"},
		{"set with a duplicate", `{"Untagged":"u","tags":["a","a"]}`, "spec.tags[1]", "Duplicate value"},
		{"map list with a duplicate key", `{"Untagged":"u","ports":[{"name":"a","port":1},{"name":"a","port":2}]}`, "spec.ports[1]", "Duplicate value"},
		{"wrong type", `{"Untagged":"u","paused":"yes"}`, "spec.paused", "Invalid value"},
	} {
		_, err := create("bad", tc.spec)
		if !apiclient.IsInvalid(err) {
			t.Errorf("%s: got %v, want 422 Invalid", tc.name, err)
			continue
		}
		if !hasCause(err, tc.field, tc.says) {
			t.Errorf("%s: no cause for field %s saying %q in %v", tc.name, tc.field, tc.says, err)
		}
	}
}

func hasCause(err error, field, says string) bool {
	var se *apiclient.StatusError
	if !errors.As(err, &se) || se.Status.Details == nil {
		return false
	}
	for _, c := range se.Status.Details.Causes {
		if c.Field == field && strings.Contains(c.Message, says) {
			return true
		}
	}
	return false
}

// Two versions, each from its own Go type, one stored: an object written in
// one is read in the other.
func TestIntegration_two_versions(t *testing.T) {
	client, _ := realtest.Client(t, apiclient.Options{})
	ns := realtest.Namespace(t, client, "crd")
	c, err := crd.New(crd.Options{Storage: "v1"}, new(GadgetV1alpha1), new(GadgetV1))
	if err != nil {
		t.Fatal(err)
	}
	res := install(t, client, c)
	ctx := context.Background()
	old := res
	old.Version = "v1alpha1"
	if _, err := client.Resource(old).Namespace(ns).Create(ctx, []byte(fmt.Sprintf(`{"apiVersion":%q,"kind":"Gadget","metadata":{"name":"g"},"spec":{"color":"red"}}`,
		old.GroupVersion())), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := client.Resource(res).Namespace(ns).Get(ctx, "g")
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := got.Field("spec", "color"); v != "red" {
		t.Errorf("read at v1: spec.color %v, want red", v)
	}
	if v, _ := got.Field("spec", "shade"); v != "light" {
		t.Errorf("read at v1: spec.shade %v, want v1's default, light", v)
	}
}

// A CRD whose names another CRD of its group holds is never served: Install
// says so in one line, once its wait is over.
func TestIntegration_install_says_what_the_CRD_lacks(t *testing.T) {
	client, _ := realtest.Client(t, apiclient.Options{})
	first := install(t, client, widgetCRD(t))
	clash := widgetCRD(t)
	clash.Spec.Group, clash.Spec.Names.Plural, clash.Spec.Names.Singular = first.Group, "widgets2", "widget2"
	clash.Spec.Names.ShortNames = nil
	clash.Name = "widgets2." + first.Group
	t.Cleanup(func() {
		_ = client.Resource(apiclient.CRDs).Delete(context.Background(), clash.Name, apiclient.DeleteOptions{})
	})
	err := crd.Install(context.Background(), client, clash, crd.InstallOptions{Timeout: 2 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "crd widgets2."+first.Group+": NamesAccepted is False") || strings.Contains(err.Error(), "\n") {
		t.Errorf("got %v, want one line: the CRD, NamesAccepted is False", err)
	}
}

type GadgetV1alpha1 struct {
	apiclient.ObjectMeta `json:"metadata"`
	Spec                 struct {
		Color string `json:"color,omitempty"`
	} `json:"spec,omitempty"`
}

type GadgetV1 struct {
	apiclient.ObjectMeta `json:"metadata"`
	Spec                 struct {
		Color string `json:"color,omitempty"`
		Shade string `json:"shade,omitempty" kubewire:"enum=light|dark,default=light"`
	} `json:"spec,omitempty"`
}

var gadgets = apiclient.Resource{Group: "gadgets.example.com", Name: "gadgets", Kind: "Gadget", Namespaced: true}

func (*GadgetV1alpha1) Resource() apiclient.Resource { r := gadgets; r.Version = "v1alpha1"; return r }
func (*GadgetV1) Resource() apiclient.Resource       { r := gadgets; r.Version = "v1"; return r }
