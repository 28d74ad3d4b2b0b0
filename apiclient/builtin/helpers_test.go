package builtin_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/builtin"
)

// kinds is one of every TypedObject the package declares
// (TestKinds_lists_every_TypedObject keeps it whole).
var kinds = []apiclient.TypedObject{
	&builtin.Deployment{}, &builtin.StatefulSet{}, &builtin.DaemonSet{},
	&builtin.Job{}, &builtin.CronJob{},
	&builtin.Service{}, &builtin.Ingress{},
	&builtin.ConfigMap{}, &builtin.Secret{},
	&builtin.ServiceAccount{}, &builtin.Role{}, &builtin.ClusterRole{}, &builtin.RoleBinding{}, &builtin.ClusterRoleBinding{},
	&builtin.PodDisruptionBudget{},
}

// openAPI is what the schema check reads of a server's OpenAPI v3 documents,
// several merged into one: the paths they serve and the schemas. Decoding into
// it keeps nothing else (descriptions, defaults, list types), which is also how
// a recording in testdata is made small.
type openAPI struct {
	Server     string                     `json:"server,omitempty"` // recordings only: the server's version
	Paths      map[string]json.RawMessage `json:"paths"`
	Components struct {
		Schemas map[string]*schema `json:"schemas"`
	} `json:"components"`
}

// schema is as much of an OpenAPI v3 schema as the check reads.
type schema struct {
	Ref                  string             `json:"$ref,omitempty"`
	AllOf                []*schema          `json:"allOf,omitempty"`
	OneOf                []*schema          `json:"oneOf,omitempty"`
	Type                 string             `json:"type,omitempty"`
	Format               string             `json:"format,omitempty"`
	Properties           map[string]*schema `json:"properties,omitempty"`
	Items                *schema            `json:"items,omitempty"`
	AdditionalProperties *schema            `json:"additionalProperties,omitempty"`
	GVK                  []gvk              `json:"x-kubernetes-group-version-kind,omitempty"`
}

type gvk struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

// checker walks Go types against the schemas of doc. used collects the names of
// the schemas it read and the paths it found, which is what a recording keeps.
type checker struct {
	doc       *openAPI
	used      map[string]bool
	usedPaths map[string]bool
	problems  []string
	seen      map[string]bool // Go type + schema already compared
}

func newChecker(doc *openAPI) *checker {
	return &checker{doc: doc, used: map[string]bool{}, usedPaths: map[string]bool{}, seen: map[string]bool{}}
}

// checkKind checks that obj's Resource is served (its collection path, in a
// namespace or not as Resource says) and that every field of obj's Go type
// is in the schema of the kind, with a type that agrees.
func (c *checker) checkKind(obj apiclient.TypedObject) {
	r := obj.Resource()
	root := "/apis/" + r.GroupVersion()
	if r.Group == "" {
		root = "/api/" + r.Version
	}
	namespaced := root + "/namespaces/{namespace}/" + r.Name
	if !c.hasPath(root+"/"+r.Name) && !c.hasPath(namespaced) {
		c.fail("%s: the server serves no %s", r, root+"/"+r.Name)
	}
	if got, want := c.hasPath(namespaced), r.Namespaced; got != want {
		c.fail("%s: Namespaced is %v, but the server serves %s: %v", r, want, namespaced, got)
	}
	var names []string
	for name, s := range c.doc.Components.Schemas {
		if slices.Contains(s.GVK, gvk{r.Group, r.Version, r.Kind}) {
			names = append(names, name)
		}
	}
	if len(names) != 1 {
		c.fail("%s: want one schema of kind %s/%s, found %q", r, r.GroupVersion(), r.Kind, names)
		return
	}
	c.used[names[0]] = true
	t := reflect.TypeOf(obj).Elem()
	c.check(t.Name(), t, c.doc.Components.Schemas[names[0]], names[0])
}

func (c *checker) hasPath(p string) bool {
	_, ok := c.doc.Paths[p]
	if ok {
		c.usedPaths[p] = true
	}
	return ok
}

var (
	rawType         = reflect.TypeFor[json.RawMessage]()
	timeType        = reflect.TypeFor[apiclient.Time]()
	intOrStringType = reflect.TypeFor[builtin.IntOrString]()
)

// check compares Go type t, reached by goPath, with schema s, reached by
// schemaPath, and everything below them.
func (c *checker) check(goPath string, t reflect.Type, s *schema, schemaPath string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	s, schemaPath = c.resolve(s, schemaPath)
	if s == nil {
		c.fail("%s (%s): schema %s is missing", goPath, t, schemaPath)
		return
	}
	key := t.String() + " " + schemaPath
	if c.seen[key] {
		return
	}
	c.seen[key] = true
	want := func(ok bool, what string) {
		if !ok {
			c.fail("%s (Go %s): want %s, schema %s is %s", goPath, t, what, schemaPath, s.describe())
		}
	}
	switch {
	case t == rawType:
		// Any JSON: managedFields' fieldsV1.
	case t == timeType:
		want(s.Type == "string" && s.Format == "date-time", "a date-time string")
	case t == intOrStringType:
		want(s.Format == "int-or-string", "int-or-string")
	case t.Kind() == reflect.String:
		// A string, or a quantity (oneOf string, number), which ResourceList
		// and sizeLimit carry as strings; not an int-or-string (oneOf integer,
		// string), which must be an IntOrString to send a number.
		want(s.isString() || s.Format == "" && slices.ContainsFunc(s.OneOf, (*schema).isString), "a string")
	case t.Kind() == reflect.Bool:
		want(s.Type == "boolean", "a boolean")
	case t.Kind() == reflect.Int32:
		want(s.Type == "integer" && s.Format == "int32", "an int32 integer")
	case t.Kind() == reflect.Int64:
		want(s.Type == "integer" && s.Format == "int64", "an int64 integer")
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		want(s.Type == "string" && s.Format == "byte", "base64 bytes (string, format byte)")
	case t.Kind() == reflect.Slice:
		want(s.Type == "array" && s.Items != nil, "an array")
		if s.Items != nil {
			c.check(goPath+"[]", t.Elem(), s.Items, schemaPath+".items")
		}
	case t.Kind() == reflect.Map && t.Key().Kind() == reflect.String:
		want(s.Type == "object" && s.AdditionalProperties != nil, "an object of any keys (additionalProperties)")
		if s.AdditionalProperties != nil {
			c.check(goPath+"[*]", t.Elem(), s.AdditionalProperties, schemaPath+".additionalProperties")
		}
	case t.Kind() == reflect.Struct:
		want(s.Type == "object" && s.Properties != nil, "an object with properties")
		c.checkFields(goPath, t, s, schemaPath)
	default:
		c.fail("%s: the check has no rule for Go %s", goPath, t)
	}
}

// checkFields checks each JSON member of struct t against s's properties; an
// embedded struct without a name in its tag (TypeMeta) adds its members.
func (c *checker) checkFields(goPath string, t reflect.Type, s *schema, schemaPath string) {
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" {
			c.checkFields(goPath, f.Type, s, schemaPath)
			continue
		}
		if name == "" {
			c.fail("%s.%s: no json tag", goPath, f.Name)
			continue
		}
		p, ok := s.Properties[name]
		if !ok {
			c.fail("%s.%s (json %q): schema %s has no property %q", goPath, f.Name, name, schemaPath, name)
			continue
		}
		c.check(goPath+"."+f.Name, f.Type, p, schemaPath+".properties."+name)
	}
}

// resolve follows $ref and a lone allOf (how the API wraps a reference that
// has a description or a default of its own) to the schema they name.
func (c *checker) resolve(s *schema, path string) (*schema, string) {
	for s != nil {
		switch {
		case s.Ref != "":
			name := strings.TrimPrefix(s.Ref, "#/components/schemas/")
			c.used[name] = true
			s, path = c.doc.Components.Schemas[name], name
		case len(s.AllOf) == 1 && s.Type == "" && s.Properties == nil:
			s = s.AllOf[0]
		default:
			return s, path
		}
	}
	return nil, path
}

func (s *schema) isString() bool {
	return s.Type == "string" && s.Format != "date-time" && s.Format != "byte" && s.Format != "int-or-string"
}

func (s *schema) describe() string {
	var parts []string
	if s.Type != "" {
		parts = append(parts, s.Type)
	}
	if s.Format != "" {
		parts = append(parts, "format "+s.Format)
	}
	for _, o := range s.OneOf {
		parts = append(parts, "oneOf "+o.describe())
	}
	if len(parts) == 0 {
		return "untyped"
	}
	return strings.Join(parts, ", ")
}

func (c *checker) fail(format string, args ...any) {
	c.problems = append(c.problems, fmt.Sprintf(format, args...))
}

// checkAll runs the check of every kind, and returns the problems sorted.
func checkAll(doc *openAPI) *checker {
	c := newChecker(doc)
	for _, k := range kinds {
		c.checkKind(k)
	}
	sort.Strings(c.problems)
	return c
}

// pruned is doc cut to what the check used: the schemas it read and the paths
// it found.
func (c *checker) pruned(server string) *openAPI {
	out := &openAPI{Server: server, Paths: map[string]json.RawMessage{}}
	out.Components.Schemas = map[string]*schema{}
	for p := range c.usedPaths {
		out.Paths[p] = json.RawMessage("{}")
	}
	for name := range c.used {
		out.Components.Schemas[name] = c.doc.Components.Schemas[name]
	}
	return out
}
