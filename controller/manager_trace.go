package controller

import (
	"net/url"
	"strings"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/trace"
)

// traceWrites returns the client hooks that, with a trace, show every write the
// process makes (a reconcile patching a deployment, a Lease renewal, an event)
// twice: as it is sent ("apiclient PATCH deployments demo/tools sent"), before
// the watch event it will cause, and when answered ("apiclient PATCH
// deployments demo/tools 200 1ms"). Reads are left out: the Reflector traces its
// own LIST and watch, and a reconcile's GETs are many.
func traceWrites(emit func(trace.Event)) (sent, answered func(apiclient.RequestInfo)) {
	hook := func(outcome string) func(apiclient.RequestInfo) {
		return func(r apiclient.RequestInfo) {
			if r.Verb == "GET" {
				return
			}
			resource, key := objectOf(r.URL)
			emit(trace.Event{Stage: trace.Client, Verb: r.Verb, Resource: resource, Key: key, Outcome: outcome, Code: r.Code, Took: r.Took})
		}
	}
	return hook("sent"), hook("answered")
}

// objectOf reads a request's resource and object key from its path:
// /api/v1/namespaces/NS/RESOURCE/NAME[/SUBRESOURCE] or /apis/GROUP/VERSION/…, the
// namespace left out for cluster-scoped ones. A collection (a POST) has no name:
// the key is then the namespace alone.
func objectOf(raw string) (resource, key string) {
	u, err := url.Parse(raw)
	if err != nil {
		return "?", "?"
	}
	parts := strings.Split(strings.Trim(u.EscapedPath(), "/"), "/")
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		parts = parts[3:]
	default:
		return u.Path, ""
	}
	ns := ""
	if len(parts) >= 3 && parts[0] == "namespaces" {
		ns, parts = unescape(parts[1]), parts[2:]
	}
	if len(parts) == 0 {
		return "namespaces", ns
	}
	resource = parts[0]
	if len(parts) >= 3 {
		resource += "/" + parts[2] // a subresource: pods/status
	}
	if len(parts) < 2 {
		return resource, ns
	}
	if ns == "" {
		return resource, unescape(parts[1])
	}
	return resource, ns + "/" + unescape(parts[1])
}

func unescape(s string) string {
	if u, err := url.PathUnescape(s); err == nil {
		return u
	}
	return s
}
