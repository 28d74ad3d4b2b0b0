package apitest

import (
	"os"
	"testing"
)

// The embedded record serves what a v1.37 kube-apiserver serves, and no more.
func TestCatalog_holds_the_built_in_resources(t *testing.T) {
	c := recorded()
	for _, tc := range []struct {
		group, version, plural string
		kind                   string
		namespaced             bool
		subs                   []string
	}{
		{"", "v1", "pods", "Pod", true, []string{"status", "eviction", "log", "binding"}},
		{"", "v1", "namespaces", "Namespace", false, []string{"status", "finalize"}},
		{"apps", "v1", "deployments", "Deployment", true, []string{"status", "scale"}},
		{"coordination.k8s.io", "v1", "leases", "Lease", true, nil},
		{"apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition", false, []string{"status"}},
	} {
		r, ok := c.resource(tc.group, tc.version, tc.plural)
		if !ok {
			t.Errorf("%s/%s/%s: not in the record", tc.group, tc.version, tc.plural)
			continue
		}
		if got, want := r.kind, tc.kind; got != want {
			t.Errorf("%s: kind %q, want %q", tc.plural, got, want)
		}
		if got, want := r.namespaced, tc.namespaced; got != want {
			t.Errorf("%s: namespaced %v, want %v", tc.plural, got, want)
		}
		for _, s := range tc.subs {
			if _, ok := r.subresources[s]; !ok {
				t.Errorf("%s: no subresource %s", tc.plural, s)
			}
		}
		if name := c.kinds[tc.group+"/"+tc.version+"/"+tc.kind]; c.schemas[name] == nil {
			t.Errorf("%s: no schema for its kind", tc.plural)
		}
	}
	for _, bad := range [][3]string{{"", "v1", "configmap"}, {"apps", "v1", "configmaps"}, {"", "v1", "deployments"}, {"apps", "v2", "deployments"}, {"difftest.kubewire.dev", "v1", "widgets"}} {
		if _, ok := c.resource(bad[0], bad[1], bad[2]); ok {
			t.Errorf("%v: in the record; a real server does not serve it", bad)
		}
	}
}

// One record suffices: v1.32's resources are all served by v1.37 (whose
// record is embedded; v1.37 adds resource.k8s.io/v1 and
// storagemigration.k8s.io/v1, and fields).
func TestCatalog_v132_is_within_v137(t *testing.T) {
	b, err := os.ReadFile("testdata/api-v1.32.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	old, err := parseCatalog(b)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := old.server, "v1.32"; got != want {
		t.Fatalf("the old record is of %s, want %s", got, want)
	}
	for k, r := range old.resources {
		n, ok := recorded().resources[k]
		if !ok {
			t.Errorf("%s: served by v1.32, not in v1.37's record", k)
			continue
		}
		if n.kind != r.kind || n.namespaced != r.namespaced {
			t.Errorf("%s: %s namespaced=%v in v1.32, %s %v in v1.37", k, r.kind, r.namespaced, n.kind, n.namespaced)
		}
	}
}
