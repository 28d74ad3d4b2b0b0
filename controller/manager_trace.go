package controller

import (
	"context"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/controller/trace"
)

// traceWrites returns the request observer (apiclient.Observer) that, with a
// trace, shows every write the process makes (a reconcile patching a
// deployment, a Lease renewal, an event) twice: as it is sent ("apiclient PATCH deployments demo/tools sent"), before
// the watch event it will cause, and when answered ("apiclient PATCH
// deployments demo/tools 200 1ms"). Reads are left out: the Reflector traces its
// own LIST and watch, and a reconcile's GETs are many.
func traceWrites(emit func(trace.Event)) apiclient.Observer {
	hook := func(outcome string) func(context.Context, apiclient.RequestInfo) {
		return func(_ context.Context, r apiclient.RequestInfo) {
			if r.Verb == "GET" {
				return
			}
			resource, key := objectOf(r)
			emit(trace.Event{Stage: trace.Client, Verb: r.Verb, Resource: resource, Key: key, Outcome: outcome, Code: r.Code, Took: r.Took})
		}
	}
	return apiclient.Observer{Sent: hook("sent"), Answered: hook("answered")}
}

// objectOf is a request's resource ("pods", "pods/status") and object key
// ("namespace/name", the name alone for cluster-scoped objects, the namespace
// alone for a collection), as the client knew them when it made the request
// (apiclient.RequestInfo): nothing is parsed back from the URL. A path parsed
// back had no way to tell /api/v1/namespaces/demo/status (the status of the
// namespace demo) from a resource "status" in demo. A request to no resource
// (discovery, /version: reads, which the trace leaves out) names none.
func objectOf(r apiclient.RequestInfo) (resource, key string) {
	if r.Action == "" {
		return "", ""
	}
	resource = r.Resource.Name
	if r.Subresource != "" {
		resource += "/" + r.Subresource
	}
	if r.Name == "" {
		return resource, r.Namespace
	}
	return resource, clock.ObjectKey(r.Namespace, r.Name)
}
