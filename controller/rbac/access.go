package rbac

import (
	"cmp"
	"slices"
	"sort"
	"sync"

	"github.com/kubewire/kubewire/apiclient"
)

// Access is one thing a process does to the API server: a verb on a resource,
// or one of its subresources, in one namespace or cluster-wide. It is what an
// RBAC rule grants, and a comparable value: a map key, a set member.
type Access struct {
	Verb        string // get, list, watch, create, update, patch, delete, deletecollection
	Group       string // "" for the core group
	Resource    string // the plural: "deployments"
	Subresource string // "status", "scale", or "" for the objects themselves
	// Namespace is where: "" for a cluster-scoped resource, or a namespaced
	// one across all namespaces — what a ClusterRole grants.
	Namespace string
}

// On returns the Access of verb on res in namespace ns ("" for all, and always
// for a cluster-scoped resource).
func On(verb string, res apiclient.Resource, ns string) Access {
	if !res.Namespaced {
		ns = ""
	}
	return Access{Verb: verb, Group: res.Group, Resource: res.Name, Namespace: ns}
}

// Of returns the Access a request needs; false for a request to no resource
// (discovery, /version), which needs none.
func Of(r apiclient.RequestInfo) (Access, bool) {
	if r.Action == "" || r.Resource.Name == "" {
		return Access{}, false
	}
	a := On(r.Action, r.Resource, r.Namespace)
	a.Subresource = r.Subresource
	return a, true
}

// resource is the name a rule gives a's resource: "deployments",
// "foos/status".
func (a Access) resource() string {
	if a.Subresource == "" {
		return a.Resource
	}
	return a.Resource + "/" + a.Subresource
}

// compare orders accesses by namespace, group, resource, subresource, verb.
func compare(a, b Access) int {
	return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Group, b.Group), cmp.Compare(a.Resource, b.Resource),
		cmp.Compare(a.Subresource, b.Subresource), cmp.Compare(a.Verb, b.Verb))
}

// Sorted returns accesses sorted and without repeats.
func Sorted(accesses []Access) []Access {
	out := slices.Clone(accesses)
	// sort.Slice, not slices.SortFunc: each struct type given to the generic sort
	// compiles a pdqsort of its own into the binary (issue 42); both sort alike.
	sort.Slice(out, func(i, j int) bool { return compare(out[i], out[j]) < 0 })
	return slices.Compact(out)
}

// Recorder notes the Access of every request it is told of: call Observe from
// an apiclient.Observer's Answered (controller.NewManager does, for the
// Manager's client). The zero value is ready to use; it is safe for concurrent use, and
// holds one entry per distinct Access, however many requests there were.
type Recorder struct {
	mu   sync.Mutex
	seen map[Access]struct{}
}

// Observe notes the Access r needs, if any. Its cost is a map insert under a
// lock; it allocates only for an Access not seen before.
func (rec *Recorder) Observe(r apiclient.RequestInfo) {
	if a, ok := Of(r); ok {
		rec.Add(a)
	}
}

// Add notes accesses as if requests had needed them.
func (rec *Recorder) Add(accesses ...Access) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.seen == nil {
		rec.seen = map[Access]struct{}{}
	}
	for _, a := range accesses {
		rec.seen[a] = struct{}{}
	}
}

// Accesses returns what was noted, sorted.
func (rec *Recorder) Accesses() []Access {
	rec.mu.Lock()
	out := make([]Access, 0, len(rec.seen))
	for a := range rec.seen {
		out = append(out, a)
	}
	rec.mu.Unlock()
	return Sorted(out)
}

// Permissions is what one process needs: what it is known to do once built
// (Built: a controller.Manager's informers, events Recorders, leader election
// and sharding), and what it was seen to do (Used: every request its client
// made).
type Permissions struct {
	Built, Used []Access
}

// All is Built and Used together, sorted, without repeats.
func (p Permissions) All() []Access {
	return Sorted(slices.Concat(p.Built, p.Used))
}

// Beyond returns the accesses of p.All() that used does not hold: what a role
// made from p grants that a run which used used did not need.
func (p Permissions) Beyond(used []Access) []Access {
	var out []Access
	for _, a := range p.All() {
		if !slices.Contains(used, a) {
			out = append(out, a)
		}
	}
	return out
}
