package crd_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/crd"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// Widget has a field of every kind a schema knows, and a tag of every option.
type Widget struct {
	apiclient.TypeMeta
	apiclient.ObjectMeta `json:"metadata"`
	Spec                 WidgetSpec   `json:"spec"`
	Status               WidgetStatus `json:"status,omitempty"`
}

type WidgetSpec struct {
	Size     string            `json:"size" kubewire:"enum=small|medium|large,default=medium,description='How big, in words.'"`
	Replicas int32             `json:"replicas" kubewire:"min=1,max=10,default=3"`
	Name     string            `json:"name,omitempty" kubewire:"pattern='^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$',minLength=1,maxLength=63"`
	Paused   bool              `json:"paused,omitempty"`
	Weight   float64           `json:"weight,omitempty"`
	Count    uint16            `json:"count,omitempty"`
	Big      int64             `json:"big,omitempty"`
	Timeout  *int32            `json:"timeout"` // a pointer: nil writes null, so never required
	Labels   map[string]string `json:"labels,omitempty" kubewire:"maxLength=63"`
	Tags     []string          `json:"tags,omitempty" kubewire:"listType=set,maxItems=8,enum=a|b|c"`
	Ports    []Port            `json:"ports,omitempty" kubewire:"listType=map,listMapKeys=name|protocol,minItems=1"`
	Args     []string          `json:"args,omitempty" kubewire:"listType=atomic"`
	Cert     []byte            `json:"cert,omitempty"`
	Expires  *apiclient.Time   `json:"expires,omitempty"`
	Started  time.Time         `json:"started,omitzero"`
	Target   IntOrString       `json:"target,omitempty"`
	Memory   any               `json:"memory,omitempty" kubewire:"int-or-string,pattern='^[0-9]+(Mi|Gi)?$'"`
	Extra    json.RawMessage   `json:"extra,omitempty"`
	Config   map[string]any    `json:"config,omitempty" kubewire:"preserve-unknown-fields"`
	Note     *string           `json:"note,omitempty" kubewire:"nullable"`
	Hidden   string            `json:"-"`
	Untagged string
	Embedded `json:",inline"`
	internal string //nolint:unused // unexported: not in JSON
}

type Embedded struct {
	Owner string `json:"owner,omitempty"`
}

type Port struct {
	Name     string `json:"name"`
	Protocol string `json:"protocol,omitempty" kubewire:"enum=TCP|UDP,default=TCP"`
	Port     int32  `json:"port" kubewire:"min=1,max=65535"`
}

type WidgetStatus struct {
	Replicas   int32  `json:"replicas"`
	Selector   string `json:"selector,omitempty"`
	Phase      string `json:"phase,omitempty"`
	Conditions []Cond `json:"conditions,omitempty" kubewire:"listType=map,listMapKeys=type"`
}

type Cond struct {
	Type   string `json:"type"`
	Status string `json:"status" kubewire:"enum=True|False|Unknown"`
}

// IntOrString stands for k8s.io's IntOrString: it says its schema with the
// methods kube-openapi reads.
type IntOrString struct{ raw json.RawMessage }

func (IntOrString) OpenAPISchemaType() []string    { return []string{"string"} }
func (IntOrString) OpenAPISchemaFormat() string    { return "int-or-string" }
func (v IntOrString) MarshalJSON() ([]byte, error) { return v.raw, nil }

var Widgets = apiclient.Resource{Group: "widgets.example.com", Version: "v1", Name: "widgets", Kind: "Widget",
	Namespaced: true, ShortNames: []string{"wd"}, Categories: []string{"all", "example"}}

func (*Widget) Resource() apiclient.Resource { return Widgets }

func widgetCRD(t *testing.T) *crd.CustomResourceDefinition {
	t.Helper()
	c, err := crd.New(crd.Options{
		Scale: &crd.Scale{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas", LabelSelectorPath: ".status.selector"},
		Columns: []crd.Column{{Name: "Size", JSONPath: ".spec.size"}, {Name: "Replicas", JSONPath: ".status.replicas"},
			{Name: "Expires", JSONPath: ".spec.expires", Priority: 1}},
	}, new(Widget))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestWidgetGolden(t *testing.T) {
	golden(t, "testdata/widget.json", widgetCRD(t))
}

// golden compares v, as indented JSON, with the file at path (-update rewrites it).
func golden(t *testing.T, path string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update rewrites it); got:\n%s", path, got)
	}
}

// The schema pinned one rule at a time, beside the golden file that shows them all.
func TestWidgetSchemaRules(t *testing.T) {
	c := widgetCRD(t)
	s := c.Spec.Versions[0].Schema.OpenAPIV3Schema
	at := func(path string) *crd.Schema {
		t.Helper()
		p := s.At(path)
		if p == nil {
			t.Fatalf("no %s in the schema", path)
		}
		return p
	}
	for _, tc := range []struct {
		name      string
		got, want any
	}{
		{"metadata is an object, nothing more", *at(".metadata"), crd.Schema{Type: "object"}},
		{"TypeMeta adds nothing", s.Properties["kind"] == nil && s.Properties["apiVersion"] == nil, true},
		{"required: no omitempty, not a pointer; status never", s.Required, []string{"spec"}},
		{"spec's required", at(".spec").Required, []string{"Untagged", "replicas", "size"}},
		{"status's required", at(".status").Required, []string{"replicas"}},
		{"int32", at(".spec.replicas").Format, "int32"},
		{"int64", at(".spec.big").Format, "int64"},
		{"unsigned: minimum 0", *at(".spec.count").Minimum, 0.0},
		{"float", at(".spec.weight").Type, "number"},
		{"[]byte", *at(".spec.cert"), crd.Schema{Type: "string", Format: "byte"}},
		{"apiclient.Time", *at(".spec.expires"), crd.Schema{Type: "string", Format: "date-time"}},
		{"time.Time", *at(".spec.started"), crd.Schema{Type: "string", Format: "date-time"}},
		{"int-or-string type", at(".spec.target").IntOrString, true},
		{"int-or-string tag", at(".spec.memory").IntOrString && at(".spec.memory").Pattern != "", true},
		{"RawMessage", *at(".spec.extra"), crd.Schema{PreserveUnknown: true}},
		{"map", at(".spec.labels").AdditionalProperties.MaxLength != nil, true},
		{"json:\"-\"", s.At(".spec.Hidden") == nil && s.At(".spec.internal") == nil, true},
		{"inline", at(".spec.owner").Type, "string"},
		{"nullable", at(".spec.note").Nullable, true},
		{"enum on a []string goes to the items", len(at(".spec.tags").Items.Enum), 3},
		{"list map keys", at(".spec.ports").ListMapKeys, []string{"name", "protocol"}},
		{"status subresource", c.Spec.Versions[0].Subresources.Status != nil, true},
		{"column type from the schema", c.Spec.Versions[0].AdditionalPrinterColumns[1].Type, "integer"},
		{"date column", c.Spec.Versions[0].AdditionalPrinterColumns[2].Type, "date"},
		{"scope", c.Spec.Scope, "Namespaced"},
		{"names", c.Spec.Names, crd.Names{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList",
			ShortNames: []string{"wd"}, Categories: []string{"all", "example"}}},
	} {
		if !reflect.DeepEqual(tc.got, tc.want) {
			t.Errorf("%s: got %#v, want %#v", tc.name, tc.got, tc.want)
		}
	}
}

func TestNewRefuses(t *testing.T) {
	type bad[S any] struct {
		apiclient.ObjectMeta `json:"metadata"`
		Spec                 S `json:"spec"`
	}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"recursion", build[recursive](), "holds itself"},
		{"recursion through a slice", build[recursiveList](), "holds itself"},
		{"pattern on an int", build[bad[struct {
			N int `json:"n" kubewire:"pattern=x"`
		}]](), "for strings"},
		{"min on a string", build[bad[struct {
			N string `json:"n" kubewire:"min=1"`
		}]](), "for numbers"},
		{"min above max", build[bad[struct {
			N int `json:"n" kubewire:"min=5,max=1"`
		}]](), "above"},
		{"enum not of the type", build[bad[struct {
			N int `json:"n" kubewire:"enum=a|b"`
		}]](), "enum value"},
		{"default not of the type", build[bad[struct {
			N bool `json:"n" kubewire:"default=3"`
		}]](), "default=3"},
		{"unknown option", build[bad[struct {
			N int `json:"n" kubewire:"minimum=1"`
		}]](), `unknown option "minimum"`},
		{"unterminated quote", build[bad[struct {
			N string `json:"n" kubewire:"pattern='^a"`
		}]](), "unterminated"},
		{"map list key optional", build[bad[struct {
			L []struct {
				K string `json:"k,omitempty"`
			} `json:"l" kubewire:"listType=map,listMapKeys=k"`
		}]](), `key "k" must be required`},
		{"map list without keys", build[bad[struct {
			L []struct {
				K string `json:"k"`
			} `json:"l" kubewire:"listType=map"`
		}]](), "needs listMapKeys"},
		{"set of structs", build[bad[struct {
			L []struct {
				K string `json:"k"`
			} `json:"l" kubewire:"listType=set"`
		}]](), "list of scalars"},
		{"non-string map keys", build[bad[struct {
			M map[int]string `json:"m"`
		}]](), "map keys"},
		{"own JSON, no schema", build[bad[struct {
			D ownJSON `json:"d"`
		}]](), "writes its own JSON"},
		{"an interface is any JSON", build[bad[struct {
			D json.Marshaler `json:"d"`
		}]](), ""},
		{"a channel", build[bad[struct {
			C chan int `json:"c"`
		}]](), "no JSON form"},
	} {
		if tc.want == "" {
			if tc.err != nil {
				t.Errorf("%s: %v", tc.name, tc.err)
			}
			continue
		}
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: got error %v, want one saying %q", tc.name, tc.err, tc.want)
		}
	}
}

type recursive struct {
	apiclient.ObjectMeta `json:"metadata"`
	Spec                 struct {
		Child *recursive `json:"child,omitempty"`
	} `json:"spec"`
}

type node struct {
	Children []node `json:"children,omitempty"`
}

type recursiveList struct {
	apiclient.ObjectMeta `json:"metadata"`
	Spec                 node `json:"spec"`
}

// build is the error SchemaOf gives for T.
func build[T any]() error {
	_, err := crd.SchemaOf(reflect.TypeFor[T]())
	return err
}

type ownJSON struct{}

func (ownJSON) MarshalJSON() ([]byte, error) { return []byte(`1`), nil }
