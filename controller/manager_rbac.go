package controller

import (
	"cmp"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/rbac"
)

// What the Manager's process needs of the API server's RBAC (package rbac):
// what its parts will do, known once they are built, and what its client was
// seen to do.

// Permissions returns what the process needs, in two parts:
//
//   - Built, known once the controllers are built, whether or not Run got to
//     it: list and watch of each informer's resource, where it caches (its
//     namespace, or cluster-wide); an events Recorder's create and patch of
//     events.k8s.io Events (controller/events/write.go), in the Manager's
//     namespace; leader election's get, create and update of Leases
//     (controller/lease/holder.go: its release is an update); sharding's get,
//     list, watch, create, update and delete of them (controller/sharding:
//     each member lists and watches the group's, and deletes a dead member's),
//     in their namespace.
//   - Used: every request the Manager's client (Client) made since NewManager
//     (an rbac.Recorder in its Observer), answered or not: a Reconciler's writes and
//     GETs, a status subresource, a Lease, an Event.
//
// After a run that did the controllers' whole job (a test, against apitest or
// a real server), rbac.Objects makes the Roles of p.All(). Requests to no
// resource (discovery, /version) need no rule. An events Recorder falls back
// to core/v1 Events on a server that serves no events.k8s.io (before 1.19):
// that is not in Built, and is in Used when it happened. Events about a
// cluster-scoped object go to namespace "default" (events.Recorder): in Used
// only. Safe for concurrent use, while Run runs too.
func (m *Manager) Permissions() rbac.Permissions {
	m.mu.Lock()
	var built []rbac.Access
	for _, inf := range m.order {
		built = append(built, rbac.On("list", inf.res, inf.key.Namespace), rbac.On("watch", inf.res, inf.key.Namespace))
	}
	if len(m.recorders) > 0 {
		built = append(built, accesses(eventsV1, m.opts.Namespace, "create", "patch")...)
	}
	m.mu.Unlock()
	if le := m.opts.LeaderElection; le != nil {
		built = append(built, accesses(apiclient.Leases, cmp.Or(le.Namespace, m.client.Namespace()), "get", "create", "update")...)
	}
	if sh := m.opts.Sharding; sh != nil {
		built = append(built, accesses(apiclient.Leases, cmp.Or(sh.Namespace, m.client.Namespace()), "get", "list", "watch", "create", "update", "delete")...)
	}
	return rbac.Permissions{Built: rbac.Sorted(built), Used: m.used.Accesses()}
}

// eventsV1 is where an events Recorder writes (controller/events/write.go).
var eventsV1 = apiclient.Resource{Group: "events.k8s.io", Version: "v1", Name: "events", Kind: "Event", Namespaced: true}

func accesses(res apiclient.Resource, ns string, verbs ...string) []rbac.Access {
	out := make([]rbac.Access, len(verbs))
	for i, v := range verbs {
		out[i] = rbac.On(v, res, ns)
	}
	return out
}
