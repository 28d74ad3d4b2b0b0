package controller

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/kubewire/kubewire/apiclient"
)

// traceWrites returns the client hook that, with a trace, shows every write the
// process makes (a reconcile patching a deployment, a Lease renewal, an event) as
// one line: "apiclient PATCH deployments demo/tools 200 1ms". Reads are left out:
// the Reflector traces its own LIST and watch, and a reconcile's GETs are many.
func traceWrites(trace func(string)) func(apiclient.RequestInfo) {
	return func(r apiclient.RequestInfo) {
		if r.Verb == "GET" {
			return
		}
		resource, key := objectOf(r.URL)
		trace(fmt.Sprintf("apiclient %s %s %s %d %s", r.Verb, resource, key, r.Code, r.Took.Round(time.Microsecond)))
	}
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
