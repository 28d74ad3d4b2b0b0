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

// Ready-made Resources: the built-in kinds kubewire's controllers and examples
// use, and those package builtin has Go types for, ready without discovery.
// resource_test.go checks each against the server's discovery.
var (
	Pods            = Resource{Version: "v1", Name: "pods", Singular: "pod", Kind: "Pod", ShortNames: []string{"po"}, Namespaced: true}
	Namespaces      = Resource{Version: "v1", Name: "namespaces", Singular: "namespace", Kind: "Namespace", ShortNames: []string{"ns"}}
	Secrets         = Resource{Version: "v1", Name: "secrets", Singular: "secret", Kind: "Secret", Namespaced: true}
	ConfigMaps      = Resource{Version: "v1", Name: "configmaps", Singular: "configmap", Kind: "ConfigMap", ShortNames: []string{"cm"}, Namespaced: true}
	Services        = Resource{Version: "v1", Name: "services", Singular: "service", Kind: "Service", ShortNames: []string{"svc"}, Namespaced: true}
	ServiceAccounts = Resource{Version: "v1", Name: "serviceaccounts", Singular: "serviceaccount", Kind: "ServiceAccount", ShortNames: []string{"sa"}, Namespaced: true}

	Deployments  = Resource{Group: "apps", Version: "v1", Name: "deployments", Singular: "deployment", Kind: "Deployment", ShortNames: []string{"deploy"}, Namespaced: true}
	StatefulSets = Resource{Group: "apps", Version: "v1", Name: "statefulsets", Singular: "statefulset", Kind: "StatefulSet", ShortNames: []string{"sts"}, Namespaced: true}
	DaemonSets   = Resource{Group: "apps", Version: "v1", Name: "daemonsets", Singular: "daemonset", Kind: "DaemonSet", ShortNames: []string{"ds"}, Namespaced: true}
	Jobs         = Resource{Group: "batch", Version: "v1", Name: "jobs", Singular: "job", Kind: "Job", Namespaced: true}
	CronJobs     = Resource{Group: "batch", Version: "v1", Name: "cronjobs", Singular: "cronjob", Kind: "CronJob", ShortNames: []string{"cj"}, Namespaced: true}

	PodDisruptionBudgets = Resource{Group: "policy", Version: "v1", Name: "poddisruptionbudgets", Singular: "poddisruptionbudget", Kind: "PodDisruptionBudget", ShortNames: []string{"pdb"}, Namespaced: true}
	Ingresses            = Resource{Group: "networking.k8s.io", Version: "v1", Name: "ingresses", Singular: "ingress", Kind: "Ingress", ShortNames: []string{"ing"}, Namespaced: true}

	Roles               = Resource{Group: "rbac.authorization.k8s.io", Version: "v1", Name: "roles", Singular: "role", Kind: "Role", Namespaced: true}
	RoleBindings        = Resource{Group: "rbac.authorization.k8s.io", Version: "v1", Name: "rolebindings", Singular: "rolebinding", Kind: "RoleBinding", Namespaced: true}
	ClusterRoles        = Resource{Group: "rbac.authorization.k8s.io", Version: "v1", Name: "clusterroles", Singular: "clusterrole", Kind: "ClusterRole"}
	ClusterRoleBindings = Resource{Group: "rbac.authorization.k8s.io", Version: "v1", Name: "clusterrolebindings", Singular: "clusterrolebinding", Kind: "ClusterRoleBinding"}

	Leases = Resource{Group: "coordination.k8s.io", Version: "v1", Name: "leases", Singular: "lease", Kind: "Lease", Namespaced: true}
	CRDs   = Resource{Group: "apiextensions.k8s.io", Version: "v1", Name: "customresourcedefinitions", Singular: "customresourcedefinition", Kind: "CustomResourceDefinition", ShortNames: []string{"crd", "crds"}}
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
