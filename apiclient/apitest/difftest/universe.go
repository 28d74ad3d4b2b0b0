package difftest

import (
	"github.com/kubewire/kubewire/apiclient"
)

// A sequence works on a small universe: four resources, a few names, a few
// values. Small on purpose: with two names and two values per field, writes
// that change nothing, conflicts and re-creations come up often, and those are
// where a fake server goes wrong.

// kind is one resource of the universe, with what the harness needs to know
// about it: how to reach it, and which of its fields the real server fills in by
// defaulting (apitest does no defaulting; see apitest's doc, "Divergences").
type kind struct {
	res    apiclient.Resource
	status bool // has a status subresource

	// shape is, of an object the server answered, what apitest models: the
	// fields a sequence writes, and the metadata (project.go). nil: all of it.
	shape keep
	// defaults drops the values the real server fills in when a field is
	// missing, so that "missing" and "defaulted" read the same.
	defaults func(obj map[string]any)
}

// Widgets are a custom resource the harness installs (crd below): a spec with
// a map, an atomic list and a number, and a status subresource.
var widgets = apiclient.Resource{Group: "difftest.kubewire.dev", Version: "v1", Name: "widgets", Singular: "widget", Kind: "Widget", Namespaced: true}

// Sprockets are a custom resource with a structural schema (sprocketCRD
// below): typed fields, defaults, a preserve-unknown-fields object, an
// embedded resource, and status and scale subresources.
var sprockets = apiclient.Resource{Group: "difftest.kubewire.dev", Version: "v1", Name: "sprockets", Singular: "sprocket", Kind: "Sprocket", Namespaced: true}

var kinds = map[string]*kind{
	"configmaps":  {res: apiclient.ConfigMaps},
	"widgets":     {res: widgets, status: true},
	"deployments": {res: apiclient.Deployments, status: true, shape: deploymentShape, defaults: deploymentDefaults},
	"pods":        {res: apiclient.Pods, status: true, shape: podShape, defaults: podDefaults},
	"leases":      {res: apiclient.Leases},
	"secrets":     {res: apiclient.Secrets, shape: secretShape},
	"sprockets":   {res: sprockets, status: true},
	"services":    {res: apiclient.Services, shape: serviceShape, defaults: serviceDefaults},
	"namespaces":  {res: apiclient.Namespaces},
}

// kindNames is the universe's resources in a fixed order, for the generator.
var kindNames = []string{"configmaps", "widgets", "deployments", "pods"}

// extraNames are the resources only the classes' raw steps write (gen_class.go):
// no watches, no marker, but cleaned up after a run.
var extraNames = []string{"leases", "secrets", "sprockets", "services", "namespaces"}

// serviceShape is what the merge-keys class writes of a Service: the real
// server also allocates a cluster IP and defaults a dozen fields.
var serviceShape = keep{"apiVersion": nil, "kind": nil, "metadata": nil, "spec": keep{"ports": nil, "selector": nil}}

var secretShape = keep{"apiVersion": nil, "kind": nil, "metadata": nil, "data": nil, "stringData": nil, "type": nil, "immutable": nil}

// crd defines widgets. Its schema keeps whatever spec and status hold
// (x-kubernetes-preserve-unknown-fields), so lists are atomic and maps
// granular, which is what apitest assumes for a resource it knows nothing of.
const crd = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"widgets.difftest.kubewire.dev"},
"spec":{"group":"difftest.kubewire.dev","scope":"Namespaced",
 "names":{"plural":"widgets","singular":"widget","kind":"Widget","listKind":"WidgetList"},
 "versions":[{"name":"v1","served":true,"storage":true,
  "subresources":{"status":{}},
  "schema":{"openAPIV3Schema":{"type":"object","properties":{
   "spec":{"type":"object","x-kubernetes-preserve-unknown-fields":true},
   "status":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}}}]}}`

// sprocketCRD defines sprockets (the classes crd-schema and scale).
const sprocketCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"sprockets.difftest.kubewire.dev"},
"spec":{"group":"difftest.kubewire.dev","scope":"Namespaced",
 "names":{"plural":"sprockets","singular":"sprocket","kind":"Sprocket","listKind":"SprocketList"},
 "versions":[{"name":"v1","served":true,"storage":true,
  "subresources":{"status":{},"scale":{"specReplicasPath":".spec.replicas","statusReplicasPath":".status.replicas","labelSelectorPath":".status.selector"}},
  "schema":{"openAPIV3Schema":{"type":"object","properties":{
   "spec":{"type":"object","properties":{
     "replicas":{"type":"integer","default":1},
     "size":{"type":"string","default":"m"},
     "ratio":{"type":"number"},
     "on":{"type":"boolean"},
     "tags":{"type":"array","items":{"type":"string"}},
     "labels":{"type":"object","additionalProperties":{"type":"string"}},
     "nested":{"type":"object","default":{},"properties":{"a":{"type":"string"},"b":{"type":"integer","default":2}}},
     "free":{"type":"object","x-kubernetes-preserve-unknown-fields":true},
     "port":{"x-kubernetes-int-or-string":true},
     "embedded":{"type":"object","x-kubernetes-embedded-resource":true,"properties":{"spec":{"type":"object","properties":{"x":{"type":"string"}}}}}}},
   "status":{"type":"object","properties":{"replicas":{"type":"integer"},"selector":{"type":"string"},"phase":{"type":"string"}}}}}}}]}}`

// The marker is the object a run creates last in each resource it watched: once
// every watch has delivered it, every watch has delivered everything before it.
const marker = "zz-end"

// selectorLabel is the label the selector watches and lists filter on.
const selectorLabel = "sel"

// markerBody is the marker object of kind k: it carries selectorLabel so that
// the filtered watches deliver it too.
func markerBody(k string) string {
	switch k {
	case "configmaps":
		return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"zz-end","labels":{"sel":"on"}}}`
	case "widgets":
		return `{"apiVersion":"difftest.kubewire.dev/v1","kind":"Widget","metadata":{"name":"zz-end","labels":{"sel":"on"}},"spec":{}}`
	case "deployments":
		return deploymentBody("zz-end", `"sel":"on"`, 1, `[{"name":"c1","image":"img:1"}]`)
	default:
		return `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"zz-end","labels":{"sel":"on"}},"spec":{"containers":[{"name":"c1","image":"img:1"}]}}`
	}
}

// deploymentBody is a valid Deployment: its selector matches its template.
func deploymentBody(name, labels string, replicas int, containers string) string {
	return `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"` + name + `","labels":{` + labels + `}},` +
		`"spec":{"replicas":` + itoa(replicas) + `,"selector":{"matchLabels":{"app":"` + name + `"}},` +
		`"template":{"metadata":{"labels":{"app":"` + name + `"}},"spec":{"containers":` + containers + `}}}}`
}
