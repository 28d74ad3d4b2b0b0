package apitest

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/kubewire/kubewire/apiclient"
)

// target is what a request path names:
//
//	/api/v1/namespaces/demo/pods/web/status → {"", v1, demo, pods, web, status}
//	/apis/apps/v1/deployments                → {apps, v1, "", deployments, "", ""}
//	/api/v1/namespaces/demo                  → {"", v1, "", namespaces, demo, ""}
type target struct {
	group, version, namespace, resource, name, sub string
	// dryRun: the request asked dryRun=All: it is answered as if done, and
	// nothing is stored and no event sent.
	dryRun bool
	// manager is who writes (fieldManager, or the User-Agent's first
	// word), and warn where the admission webhooks' warnings go, for the
	// answer's Warning headers (nil: nowhere).
	manager string
	warn    *[]string
	// validation is the request's fieldValidation: "", Ignore, Warn or
	// Strict (decode.go).
	validation string
	// crd is a custom resource's version in its stored CRD: its schema
	// prunes, checks and defaults the objects written (schema_crd.go).
	crd map[string]any
	// conv is the conversion webhook of a request at a version of a custom
	// resource other than its storage version (conversion.go); nil else.
	conv *converter
}

// parsePath splits an API path; ok is false for anything that is not one.
func parsePath(p string) (target, bool) {
	var t target
	segs := strings.Split(strings.Trim(p, "/"), "/")
	for i, s := range segs {
		u, err := url.PathUnescape(s)
		if err != nil {
			return t, false
		}
		segs[i] = u
	}
	switch {
	case len(segs) >= 2 && segs[0] == "api":
		t.version, segs = segs[1], segs[2:]
	case len(segs) >= 3 && segs[0] == "apis":
		t.group, t.version, segs = segs[1], segs[2], segs[3:]
	default:
		return t, false
	}
	// namespaces/NS/RESOURCE… is a namespaced resource; namespaces[/NAME[/SUB]]
	// with SUB status or finalize is the namespaces resource itself.
	if len(segs) >= 3 && segs[0] == "namespaces" && segs[2] != "status" && segs[2] != "finalize" {
		t.namespace, segs = segs[1], segs[2:]
	}
	if len(segs) == 0 || len(segs) > 3 || segs[0] == "" {
		return t, false
	}
	t.resource = segs[0]
	if len(segs) > 1 {
		t.name = segs[1]
	}
	if len(segs) > 2 {
		t.sub = segs[2]
	}
	return t, true
}

// collection is the key of the resource across namespaces: "pods", "deployments.apps".
func (t target) collection() string { return t.res().String() }

// apiVersion is what objects of the target carry: "v1", "apps/v1".
func (t target) apiVersion() string { return t.res().GroupVersion() }

// res is the target's resource, for apiclient's names of it.
func (t target) res() apiclient.Resource {
	return apiclient.Resource{Group: t.group, Version: t.version, Name: t.resource}
}

// errNoRoute is the 404 of a path in no group the server serves: the real
// server's mux answers it in plain text, not with a Status.
var errNoRoute = fmt.Errorf("404 page not found")

// served returns the resource t names, as the server serves it: a built-in
// one from the record (catalog.go), a custom one from a stored
// CustomResourceDefinition that serves t's version. Anything else is 404 as on
// kube-apiserver: a Status NotFound where t's group is built in or t's
// group-version is a CRD's, plain text (errNoRoute) where neither; a namespace on a cluster-scoped resource, and
// a subresource the resource lacks, are 404 too. Called with l.mu held.
func (l *liveState) served(t target) (*apiResource, error) {
	r, ok := l.api.resource(t.group, t.version, t.resource)
	if !ok {
		r, ok = l.customResource(t)
	}
	if !ok && l.anyCustom && !l.api.groupServed(t.group) {
		r, ok = &apiResource{group: t.group, version: t.version, name: t.resource, namespaced: t.namespace != "",
			subresources: map[string]string{"status": ""}}, true
	}
	notFound := fail(http.StatusNotFound, "the server could not find the requested resource")
	if !ok {
		if !l.api.groupServed(t.group) && !l.customGroupVersion(t.group, t.version) {
			return nil, errNoRoute
		}
		return nil, notFound
	}
	if t.namespace != "" && !r.namespaced {
		return nil, notFound
	}
	if t.namespace == "" && r.namespaced && t.name != "" {
		return nil, notFound
	}
	if t.sub != "" {
		if _, ok := r.subresources[t.sub]; !ok {
			return nil, notFound
		}
	}
	return r, nil
}

// customResource is t's resource as a stored CRD defines it, if it serves
// t's version. Called with l.mu held.
func (l *liveState) customResource(t target) (*apiResource, bool) {
	crd, ok := l.objects[crdCollection][t.resource+"."+t.group]
	if !ok {
		return nil, false
	}
	spec, _ := crd["spec"].(map[string]any)
	names, _ := spec["names"].(map[string]any)
	if spec["group"] != t.group || names["plural"] != t.resource {
		return nil, false
	}
	for _, v := range asList(spec["versions"]) {
		vm, _ := v.(map[string]any)
		if vm["name"] != t.version || vm["served"] != true {
			continue
		}
		r := &apiResource{group: t.group, version: t.version, name: t.resource, namespaced: spec["scope"] != "Cluster",
			subresources: map[string]string{}, crd: vm}
		r.kind, _ = names["kind"].(string)
		r.singular, _ = names["singular"].(string)
		sub, _ := vm["subresources"].(map[string]any)
		if _, ok := sub["status"]; ok {
			r.subresources["status"] = r.kind
		}
		if _, ok := sub["scale"]; ok {
			r.subresources["scale"] = "Scale"
		}
		return r, true
	}
	return nil, false
}

// customGroupVersion reports whether a stored CRD serves a resource at
// group g, version v. Called with l.mu held.
func (l *liveState) customGroupVersion(g, v string) bool {
	for _, crd := range l.objects[crdCollection] {
		spec, _ := crd["spec"].(map[string]any)
		if spec["group"] != g {
			continue
		}
		for _, ver := range asList(spec["versions"]) {
			if vm, _ := ver.(map[string]any); vm["name"] == v && vm["served"] == true {
				return true
			}
		}
	}
	return false
}

// crdCollection is where CustomResourceDefinitions are stored.
const crdCollection = "customresourcedefinitions.apiextensions.k8s.io"
