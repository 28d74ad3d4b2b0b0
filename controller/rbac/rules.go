package rbac

import (
	"cmp"
	"slices"
	"sort"
	"strings"

	"github.com/kubewire/kubewire/apiclient/builtin"
)

// Rule is one RBAC PolicyRule, apiclient/builtin's: here, verbs on
// resources of one API group.
type Rule = builtin.PolicyRule

// Scope is the rules of one namespace — a Role's — or, Namespace "", the
// cluster's: a ClusterRole's.
type Scope struct {
	Namespace string
	Rules     []Rule
}

// Scopes splits accesses by where they apply, and merges each part into
// rules (Rules): the cluster's first, if any, then each namespace's in order.
func Scopes(accesses []Access) []Scope {
	byNS := map[string][]Access{}
	for _, a := range accesses {
		byNS[a.Namespace] = append(byNS[a.Namespace], a)
	}
	var out []Scope
	for ns, as := range byNS {
		out = append(out, Scope{Namespace: ns, Rules: Rules(as)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Namespace < out[j].Namespace }) // not slices.SortFunc: see Sorted
	return out
}

// Rules merges accesses (of one scope: their namespaces are not looked at)
// into as few rules as kubectl would print for them: the verbs of each group's
// resource gathered and sorted, then the resources of one group that have the
// same verbs in one rule, sorted. Rules are ordered by group, then by their
// first resource.
func Rules(accesses []Access) []Rule {
	type groupResource struct{ group, resource string }
	verbs := map[groupResource][]string{}
	for _, a := range accesses {
		gr := groupResource{a.Group, a.resource()}
		if !slices.Contains(verbs[gr], a.Verb) {
			verbs[gr] = append(verbs[gr], a.Verb)
		}
	}
	type groupVerbs struct{ group, verbs string }
	merged := map[groupVerbs]*Rule{}
	for gr, vs := range verbs {
		slices.Sort(vs)
		key := groupVerbs{gr.group, strings.Join(vs, ",")}
		r := merged[key]
		if r == nil {
			r = &Rule{APIGroups: []string{gr.group}, Verbs: vs}
			merged[key] = r
		}
		r.Resources = append(r.Resources, gr.resource)
	}
	out := make([]Rule, 0, len(merged))
	for _, r := range merged {
		slices.Sort(r.Resources)
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { // not slices.SortFunc: see Sorted
		a, b := out[i], out[j]
		return cmp.Or(cmp.Compare(a.APIGroups[0], b.APIGroups[0]), cmp.Compare(a.Resources[0], b.Resources[0])) < 0
	})
	return out
}
