package crd

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/kubewire/kubewire/apiclient"
)

// Options say what the Go types do not. The zero value is a CRD with no
// printer columns, no scale subresource, and its one version stored.
type Options struct {
	// Storage names the version the server stores objects in; with one version
	// it may be empty.
	Storage string
	// Columns are the printer columns of every version.
	Columns []Column
	// Scale turns on the scale subresource in every version.
	Scale *Scale
	// APIApproved is the api-approved.kubernetes.io annotation, which the
	// server requires of a CRD whose group is k8s.io, kubernetes.io or ends in
	// one of them (KEP-1111): the URL of the pull request that approved the API,
	// or, for an example or an experiment, a text starting with "unapproved".
	APIApproved string
}

// New builds the CustomResourceDefinition of a custom resource, one version
// per object given: each a TypedObject of the Go type of that version (new(Foo)
// will do; only its type and its Resource are read). The versions must agree
// on group, kind, plural and scope.
//
// From the Resource: the group, the names (plural, singular — the kind in
// lower case when empty —, kind, listKind = kind + "List", short names,
// categories) and the scope. From the type: the schema (SchemaOf), and the
// status subresource when the type has a top-level "status" member.
//
// New checks what it can before the server does: one storage version, no two
// versions of one name, the annotation for a protected group, the scale paths
// and list-map keys present in the schema.
func New(opts Options, versions ...apiclient.TypedObject) (*CustomResourceDefinition, error) {
	if len(versions) == 0 {
		return nil, fmt.Errorf("crd: no versions")
	}
	first := versions[0].Resource()
	c := &CustomResourceDefinition{
		TypeMeta:   apiclient.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: apiclient.ObjectMeta{Name: first.Name + "." + first.Group},
		Spec: Spec{Group: first.Group, Scope: "Cluster", Names: Names{Plural: first.Name, Singular: first.Singular,
			Kind: first.Kind, ListKind: first.Kind + "List", ShortNames: first.ShortNames, Categories: first.Categories}},
	}
	if first.Namespaced {
		c.Spec.Scope = "Namespaced"
	}
	if c.Spec.Names.Singular == "" {
		c.Spec.Names.Singular = strings.ToLower(first.Kind)
	}
	if first.Group == "" || first.Name == "" || first.Kind == "" || first.Version == "" {
		return nil, fmt.Errorf("crd %s: the Resource needs a group, a version, a plural name and a kind", c.Name)
	}
	if protected(first.Group) {
		if opts.APIApproved == "" {
			return nil, fmt.Errorf("crd %s: group %s is reserved for Kubernetes APIs: set Options.APIApproved to the approving pull request's URL, or to a text starting with \"unapproved\"", c.Name, first.Group)
		}
		c.Annotations = map[string]string{"api-approved.kubernetes.io": opts.APIApproved}
	}
	storage := opts.Storage
	if storage == "" && len(versions) == 1 {
		storage = first.Version
	}
	stored := 0
	for _, obj := range versions {
		v, err := version(c, obj, opts)
		if err != nil {
			return nil, fmt.Errorf("crd %s version %s: %w", c.Name, obj.Resource().Version, err)
		}
		v.Storage = v.Name == storage
		if v.Storage {
			stored++
		}
		c.Spec.Versions = append(c.Spec.Versions, v)
	}
	if stored != 1 {
		return nil, fmt.Errorf("crd %s: Options.Storage (%q) must name one of the versions", c.Name, opts.Storage)
	}
	return c, nil
}

// MustNew is New for types fixed when the program is written, as
// regexp.MustCompile is for fixed patterns: it panics where New fails, which a
// test of the program finds at once.
func MustNew(opts Options, versions ...apiclient.TypedObject) *CustomResourceDefinition {
	c, err := New(opts, versions...)
	if err != nil {
		panic(err)
	}
	return c
}

// version builds one version from obj's type.
func version(c *CustomResourceDefinition, obj apiclient.TypedObject, opts Options) (Version, error) {
	r := obj.Resource()
	if r.Group != c.Spec.Group || r.Name != c.Spec.Names.Plural || r.Kind != c.Spec.Names.Kind || (c.Spec.Scope == "Namespaced") != r.Namespaced {
		return Version{}, fmt.Errorf("its Resource %s (kind %s) is not the same resource as the first version's", r, r.Kind)
	}
	for _, v := range c.Spec.Versions {
		if v.Name == r.Version {
			return Version{}, fmt.Errorf("given twice")
		}
	}
	s, err := SchemaOf(reflect.TypeOf(obj))
	if err != nil {
		return Version{}, err
	}
	v := Version{Name: r.Version, Served: true, Schema: Validation{OpenAPIV3Schema: s}}
	if _, ok := s.Properties["status"]; ok {
		v.Subresources = &Subresources{Status: &struct{}{}}
	}
	if opts.Scale != nil {
		for _, p := range []string{opts.Scale.SpecReplicasPath, opts.Scale.StatusReplicasPath} {
			if at := s.At(p); at == nil || at.Type != "integer" {
				return Version{}, fmt.Errorf("scale: %s is not an integer field of the schema", p)
			}
		}
		if v.Subresources == nil {
			v.Subresources = &Subresources{}
		}
		v.Subresources.Scale = opts.Scale
	}
	for _, col := range opts.Columns {
		if col.Type == "" {
			col.Type = columnType(s.At(col.JSONPath))
		}
		v.AdditionalPrinterColumns = append(v.AdditionalPrinterColumns, col)
	}
	return v, nil
}

// At is the schema of the member at a plain dotted JSON path (".spec.replicas"),
// or nil when there is none or the path is not plain.
func (s *Schema) At(path string) *Schema {
	if !strings.HasPrefix(path, ".") {
		return nil
	}
	for name := range strings.SplitSeq(path[1:], ".") {
		if s = s.Properties[name]; s == nil {
			return nil
		}
	}
	return s
}

// columnType is the printer column type of a schema node: its own type, date
// for a time, and string when unknown.
func columnType(s *Schema) string {
	switch {
	case s == nil || s.Type == "" || s.Type == "object" || s.Type == "array":
		return "string"
	case s.Format == "date-time":
		return "date"
	}
	return s.Type
}

// protected reports whether group is one the server reserves for approved
// Kubernetes APIs.
func protected(group string) bool {
	for _, g := range []string{"k8s.io", "kubernetes.io"} {
		if group == g || strings.HasSuffix(group, "."+g) {
			return true
		}
	}
	return false
}
