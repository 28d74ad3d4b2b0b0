package apiclient

import (
	"net/url"
	"strings"
)

// Resource names one kind of thing the API serves — pods, deployments.apps, a
// custom resource — and says how to reach it. Discovery fills every field; for the
// common resources the package declares ready-made values (Pods, Deployments, …).
//
// A Resource is a small value: copy it freely.
type Resource struct {
	Group      string // "" for the core group, "apps", "stable.example.com"
	Version    string // "v1"
	Name       string // the plural, lower-case: "pods"
	Singular   string // "pod"
	Kind       string // "Pod"
	ShortNames []string
	Namespaced bool
	Verbs      []string // "get", "list", "watch", "create", "update", "patch", "delete", …
	Categories []string // "all", …
}

// Resources used by kubewire's own examples and controller, ready to use without
// discovery.
var (
	Pods        = Resource{Version: "v1", Name: "pods", Singular: "pod", Kind: "Pod", ShortNames: []string{"po"}, Namespaced: true}
	Namespaces  = Resource{Version: "v1", Name: "namespaces", Singular: "namespace", Kind: "Namespace", ShortNames: []string{"ns"}}
	Secrets     = Resource{Version: "v1", Name: "secrets", Singular: "secret", Kind: "Secret", Namespaced: true}
	ConfigMaps  = Resource{Version: "v1", Name: "configmaps", Singular: "configmap", Kind: "ConfigMap", ShortNames: []string{"cm"}, Namespaced: true}
	Deployments = Resource{Group: "apps", Version: "v1", Name: "deployments", Singular: "deployment", Kind: "Deployment", ShortNames: []string{"deploy"}, Namespaced: true}
	Leases      = Resource{Group: "coordination.k8s.io", Version: "v1", Name: "leases", Singular: "lease", Kind: "Lease", Namespaced: true}
	CRDs        = Resource{Group: "apiextensions.k8s.io", Version: "v1", Name: "customresourcedefinitions", Singular: "customresourcedefinition", Kind: "CustomResourceDefinition", ShortNames: []string{"crd", "crds"}}
)

// GroupVersion is the apiVersion of the resource's objects: "v1", "apps/v1".
func (r Resource) GroupVersion() string {
	if r.Group == "" {
		return r.Version
	}
	return r.Group + "/" + r.Version
}

// String is the name kubectl shows and accepts: "pods", "deployments.apps".
func (r Resource) String() string {
	if r.Group == "" {
		return r.Name
	}
	return r.Name + "." + r.Group
}

// Has reports whether the resource supports verb ("watch", "patch", …). A Resource
// without a verb list (one declared by hand) is assumed to support everything.
func (r Resource) Has(verb string) bool {
	if len(r.Verbs) == 0 {
		return true
	}
	for _, v := range r.Verbs {
		if v == verb {
			return true
		}
	}
	return false
}

// Path returns the URL path of the resource's collection in namespace ns, or of one
// object when name is given, or of one of its subresources ("status", "scale"):
//
//	/api/v1/namespaces/default/pods
//	/apis/apps/v1/namespaces/default/deployments/web/scale
//	/api/v1/nodes/node-1
//
// ns is ignored for cluster-scoped resources; an empty ns on a namespaced resource
// means all namespaces (valid for list and watch).
func (r Resource) Path(ns, name, subresource string) string {
	var b strings.Builder
	if r.Group == "" {
		b.WriteString("/api/")
	} else {
		b.WriteString("/apis/")
		b.WriteString(r.Group)
		b.WriteByte('/')
	}
	b.WriteString(r.Version)
	if r.Namespaced && ns != "" {
		b.WriteString("/namespaces/")
		b.WriteString(url.PathEscape(ns))
	}
	b.WriteByte('/')
	b.WriteString(r.Name)
	if name != "" {
		b.WriteByte('/')
		b.WriteString(url.PathEscape(name))
		if subresource != "" {
			b.WriteByte('/')
			b.WriteString(subresource)
		}
	}
	return b.String()
}
