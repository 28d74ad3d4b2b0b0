package apitest

import (
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
