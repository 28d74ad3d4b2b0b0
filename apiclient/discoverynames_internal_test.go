package apiclient

import (
	"strings"
	"testing"
)

// FuzzCheckName: a name checkName accepts is one path segment as it stands —
// nothing a URL would read as a separator, an escape, a query or a dot
// segment — and at most 253 bytes.
func FuzzCheckName(f *testing.F) {
	for _, s := range []string{"apps", "v1beta1", "samplecontroller.k8s.io", "../../evil?x=", "a..b", "-a", "a-", "%2e%2e", "Pods", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		for _, kind := range []string{"group", "version"} {
			if checkName(kind, name) != nil {
				continue
			}
			if len(name) > 253 || name == "." || name == ".." || strings.ContainsAny(name, "/?#%\\ ") || strings.ToLower(name) != name {
				t.Fatalf("checkName(%q, %q) accepted it", kind, name)
			}
			if kind == "version" && (len(name) > 63 || strings.Contains(name, ".")) {
				t.Fatalf("checkName(version, %q) accepted a dot or more than 63 bytes", name)
			}
		}
	})
}
