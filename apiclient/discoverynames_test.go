package apiclient_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
)

// Issue 29: group and version names from /apis went into request paths
// unchecked, so a hostile server's group "../../evil?x=" made discovery ask for
// `GET /apis/../../evil%3Fx=/v1/../../../secret`. Now every name is checked
// before it becomes a path: a bad one is never asked for, never becomes a
// Resource, and the *PartialDiscoveryError names it; the good ones still work.
func TestDiscovery_refuses_names_that_are_not_names(t *testing.T) {
	legacy := map[string]string{
		"/api":    `{"versions":["v1","../../../secret"]}`,
		"/api/v1": `{"resources":[{"name":"pods","singularName":"pod","namespaced":true,"kind":"Pod","verbs":["get","list"]},{"name":"pods?watch=1","namespaced":true,"kind":"X","verbs":["get"]}]}`,
		"/apis": `{"groups":[{"name":"../../evil?x=","versions":[{"groupVersion":"../../evil?x=/v1","version":"v1"}],"preferredVersion":{"version":"v1"}},
			{"name":"apps","versions":[{"groupVersion":"apps/../../../secret","version":"../../../secret"},{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"version":"v1"}}]}`,
		"/apis/apps/v1": `{"resources":[{"name":"deployments","singularName":"deployment","namespaced":true,"kind":"Deployment","verbs":["get","list"]},{"name":"Deploy ments","namespaced":true,"kind":"D","verbs":["get"]}]}`,
	}
	aggregated := map[string]string{
		"/api": `{"kind":"APIGroupDiscoveryList","items":[{"metadata":{"name":""},"versions":[{"version":"v1","resources":[{"resource":"pods","responseKind":{"kind":"Pod"},"scope":"Namespaced","singularResource":"pod","verbs":["get","list"]}]}]}]}`,
		"/apis": `{"kind":"APIGroupDiscoveryList","items":[
			{"metadata":{"name":"../../evil?x="},"versions":[{"version":"v1","resources":[{"resource":"secrets","responseKind":{"kind":"S"},"scope":"Namespaced","verbs":["get"]}]}]},
			{"metadata":{"name":"apps"},"versions":[{"version":"../v1","resources":[{"resource":"deployments","responseKind":{"kind":"D"},"scope":"Namespaced","verbs":["get"]}]},
				{"version":"v1","resources":[{"resource":"deployments","responseKind":{"kind":"Deployment"},"scope":"Namespaced","singularResource":"deployment","verbs":["get","list"]},
					{"resource":"../../../secret","responseKind":{"kind":"D"},"scope":"Namespaced","verbs":["get"]}]}]}]}`,
	}
	for _, tt := range []struct {
		name string
		docs map[string]string
		ct   string
		gvs  []string // what the PartialDiscoveryError must name
	}{
		{"legacy", legacy, "application/json", []string{`"../../../secret"`, `"../../evil?x=/"`, `"apps/../../../secret"`, "v1", "apps/v1"}},
		{"aggregated", aggregated, "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", []string{`"../../evil?x=/"`, `"apps/../v1"`, "apps/v1"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var asked []string
			c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				asked = append(asked, r.URL.RawPath+" "+r.URL.Path)
				mu.Unlock()
				body, ok := tt.docs[r.URL.Path]
				if !ok || r.URL.RawPath != "" {
					writeJSON(w, 404, statusBody(404, "NotFound", "no"))
					return
				}
				w.Header().Set("Content-Type", tt.ct)
				_, _ = w.Write([]byte(body))
			})
			resources, err := c.ServerResources(context.Background())
			for _, a := range asked {
				if strings.Contains(a, "..") || strings.Contains(a, "evil") || strings.Contains(a, "%") {
					t.Errorf("discovery asked for %q", a)
				}
			}
			var names []string
			for _, r := range resources {
				names = append(names, r.GroupVersion()+" "+r.Name)
			}
			if want := []string{"v1 pods", "apps/v1 deployments"}; !slices.Equal(names, want) {
				t.Errorf("resources %q, want %q", names, want)
			}
			var partial *apiclient.PartialDiscoveryError
			if !errors.As(err, &partial) {
				t.Fatalf("err = %v, want a *PartialDiscoveryError naming what was refused", err)
			}
			for _, gv := range tt.gvs {
				if partial.Unread[gv] == nil {
					t.Errorf("the error does not name %s: %v", gv, err)
				}
			}
			if _, err := c.Resolve(context.Background(), "deployments"); err != nil {
				t.Errorf("resolve deployments: %v", err)
			}
		})
	}
}
