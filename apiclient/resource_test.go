package apiclient_test

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
)

// readyMade is every Resource value resource.go declares, by its name there.
var readyMade = map[string]apiclient.Resource{
	"Pods": apiclient.Pods, "Namespaces": apiclient.Namespaces, "Secrets": apiclient.Secrets,
	"ConfigMaps": apiclient.ConfigMaps, "Services": apiclient.Services, "ServiceAccounts": apiclient.ServiceAccounts,
	"Deployments": apiclient.Deployments, "StatefulSets": apiclient.StatefulSets, "DaemonSets": apiclient.DaemonSets,
	"Jobs": apiclient.Jobs, "CronJobs": apiclient.CronJobs, "PodDisruptionBudgets": apiclient.PodDisruptionBudgets,
	"Ingresses": apiclient.Ingresses, "Roles": apiclient.Roles, "RoleBindings": apiclient.RoleBindings,
	"ClusterRoles": apiclient.ClusterRoles, "ClusterRoleBindings": apiclient.ClusterRoleBindings,
	"Leases": apiclient.Leases, "CRDs": apiclient.CRDs,
}

// The ready-made values are typed by hand: each must say what the server's
// discovery says of that resource (recorded from kube-apiserver 1.32), or a
// client built on one reaches the wrong path or names the wrong kind.
func TestResources_ready_made_values_are_what_discovery_says(t *testing.T) {
	c, _ := discoveryServer(t, true)
	served, err := c.ServerResources(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range readyMade {
		i := slices.IndexFunc(served, func(s apiclient.Resource) bool {
			return s.Group == r.Group && s.Version == r.Version && s.Name == r.Name
		})
		if i < 0 {
			t.Errorf("%s: %s/%s is not served", name, r.GroupVersion(), r.Name)
			continue
		}
		s := served[i]
		if got, want := r.Kind, s.Kind; got != want {
			t.Errorf("%s: Kind %q, discovery says %q", name, got, want)
		}
		if got, want := r.Singular, s.Singular; got != want {
			t.Errorf("%s: Singular %q, discovery says %q", name, got, want)
		}
		if got, want := r.Namespaced, s.Namespaced; got != want {
			t.Errorf("%s: Namespaced %v, discovery says %v", name, got, want)
		}
		if got, want := r.ShortNames, s.ShortNames; !slices.Equal(got, want) {
			t.Errorf("%s: ShortNames %q, discovery says %q", name, got, want)
		}
	}
}

// Every Resource resource.go declares is in readyMade, so that the test above
// checks a value as soon as it is added.
func TestResources_every_ready_made_value_is_checked(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "resource.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var declared []string
	ast.Inspect(f, func(n ast.Node) bool {
		spec, ok := n.(*ast.ValueSpec)
		if !ok {
			return true
		}
		for i, v := range spec.Values {
			if lit, ok := v.(*ast.CompositeLit); ok {
				if id, ok := lit.Type.(*ast.Ident); ok && id.Name == "Resource" {
					declared = append(declared, spec.Names[i].Name)
				}
			}
		}
		return true
	})
	if len(declared) == 0 {
		t.Fatal("found no Resource values in resource.go")
	}
	for _, name := range declared {
		if _, ok := readyMade[name]; !ok {
			t.Errorf("resource.go declares %s, which readyMade does not check", name)
		}
	}
	if got, want := len(readyMade), len(declared); got != want {
		t.Errorf("readyMade has %d values, resource.go declares %d", got, want)
	}
}
