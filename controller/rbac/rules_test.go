package rbac_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/builtin"
	"github.com/kubewire/kubewire/controller/rbac"
)

func rulesText(rules []rbac.Rule) string {
	var lines []string
	for _, r := range rules {
		lines = append(lines, fmt.Sprintf("%v %v %v", r.APIGroups, r.Resources, r.Verbs))
	}
	return strings.Join(lines, "\n")
}

// Resources of one group with the same verbs share a rule; verbs and
// resources are sorted; the same access twice is one.
func TestRules_merge_per_group_and_verb_set_sorted(t *testing.T) {
	a := func(verb, group, resource, sub string) rbac.Access {
		return rbac.Access{Verb: verb, Group: group, Resource: resource, Subresource: sub, Namespace: "x"}
	}
	got := rulesText(rbac.Rules([]rbac.Access{
		a("watch", "", "pods", ""), a("list", "", "pods", ""), a("list", "", "configmaps", ""), a("watch", "", "configmaps", ""),
		a("patch", "apps", "deployments", ""), a("list", "apps", "deployments", ""), a("watch", "apps", "deployments", ""),
		a("update", "apps", "deployments", "scale"), a("list", "", "pods", ""),
	}))
	want := strings.Join([]string{
		"[] [configmaps pods] [list watch]",
		"[apps] [deployments] [list patch watch]",
		"[apps] [deployments/scale] [update]",
	}, "\n")
	if got != want {
		t.Errorf("rules:\n%s\nwant:\n%s", got, want)
	}
}

// A namespaced resource used across all namespaces, and a cluster-scoped one,
// need a ClusterRole; one used in a namespace, a Role there.
func TestScopes_split_cluster_wide_from_each_namespace(t *testing.T) {
	accesses := []rbac.Access{
		rbac.On("list", apiclient.Pods, ""),
		rbac.On("list", apiclient.Namespaces, "ignored"), // cluster-scoped
		rbac.On("create", apiclient.Leases, "ops"),
		rbac.On("get", apiclient.Leases, "ops"),
		rbac.On("patch", apiclient.Deployments, "demo"),
	}
	var got []string
	for _, s := range rbac.Scopes(accesses) {
		got = append(got, fmt.Sprintf("%q: %s", s.Namespace, strings.ReplaceAll(rulesText(s.Rules), "\n", "; ")))
	}
	want := []string{
		`"": [] [namespaces pods] [list]`,
		`"demo": [apps] [deployments] [patch]`,
		`"ops": [coordination.k8s.io] [leases] [create get]`,
	}
	if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
		t.Errorf("scopes:\n%s\nwant:\n%s", g, w)
	}
	objs := rbac.Objects("x", rbac.ServiceAccount{Name: "x", Namespace: "demo"}, accesses)
	var kinds []string
	for _, o := range objs {
		switch o := o.(type) {
		case *builtin.ClusterRole:
			kinds = append(kinds, o.Kind+"/"+o.Namespace)
		case *builtin.Role:
			kinds = append(kinds, o.Kind+"/"+o.Namespace)
		case *builtin.ClusterRoleBinding:
			kinds = append(kinds, o.Kind+"/"+o.Namespace+"→"+o.RoleRef.Kind)
		case *builtin.RoleBinding:
			kinds = append(kinds, o.Kind+"/"+o.Namespace+"→"+o.RoleRef.Kind)
		}
	}
	if got, want := strings.Join(kinds, " "), "ClusterRole/ ClusterRoleBinding/→ClusterRole Role/demo RoleBinding/demo→Role Role/ops RoleBinding/ops→Role"; got != want {
		t.Errorf("objects: %s\nwant:    %s", got, want)
	}
}

// Of reads the Access from what the client knew; discovery needs none.
func TestOf_reads_the_request_not_its_URL(t *testing.T) {
	a, ok := rbac.Of(apiclient.RequestInfo{Verb: "PUT", URL: "https://h/ignored", Action: "update", Resource: apiclient.Deployments, Namespace: "demo", Name: "web", Subresource: "scale"})
	if want := (rbac.Access{Verb: "update", Group: "apps", Resource: "deployments", Subresource: "scale", Namespace: "demo"}); !ok || a != want {
		t.Errorf("Of = %+v, %v; want %+v", a, ok, want)
	}
	if _, ok := rbac.Of(apiclient.RequestInfo{Verb: "GET", URL: "https://h/apis"}); ok {
		t.Error("discovery needs an Access; want none (system:discovery)")
	}
}
