package apiclient_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
)

// discoveryServer serves the discovery documents recorded from kube-apiserver 1.32
// (testdata/discovery, see TestRecordDiscovery), aggregated or legacy.
func discoveryServer(t *testing.T, aggregated bool) (*apiclient.Client, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		name := strings.ReplaceAll(strings.TrimPrefix(r.URL.Path, "/"), "/", "_") + ".json"
		dir, ct := "legacy", "application/json"
		if aggregated && strings.Contains(r.Header.Get("Accept"), "as=APIGroupDiscoveryList") {
			dir, ct = "aggregated", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
		}
		body, err := os.ReadFile(filepath.Join("testdata", "discovery", dir, name))
		if err != nil {
			writeJSON(w, 404, statusBody(404, "NotFound", "the server could not find the requested resource"))
			return
		}
		w.Header().Set("Content-Type", ct)
		_, _ = w.Write(body)
	})
	return c, &calls
}

func TestResolve_accepts_what_kubectl_accepts(t *testing.T) {
	tests := []struct{ name, want string }{
		{"pods", "pods v1 Pod namespaced"},
		{"pod", "pods v1 Pod namespaced"},
		{"po", "pods v1 Pod namespaced"},
		{"Pod", "pods v1 Pod namespaced"},
		{"PODS", "pods v1 Pod namespaced"},
		{"deploy", "deployments.apps v1 Deployment namespaced"},
		{"deployments.apps", "deployments.apps v1 Deployment namespaced"},
		{"deployment.apps", "deployments.apps v1 Deployment namespaced"},
		{"deployments.v1.apps", "deployments.apps v1 Deployment namespaced"},
		{"deploy.apps", "deployments.apps v1 Deployment namespaced"},
		{"ns", "namespaces v1 Namespace cluster"},
		{"nodes", "nodes v1 Node cluster"},
		{"events", "events v1 Event namespaced"}, // core before events.k8s.io
		{"events.events.k8s.io", "events.events.k8s.io v1 Event namespaced"},
		{"hpa", "horizontalpodautoscalers.autoscaling v2 HorizontalPodAutoscaler namespaced"}, // the preferred version
		{"horizontalpodautoscalers.v1.autoscaling", "horizontalpodautoscalers.autoscaling v1 HorizontalPodAutoscaler namespaced"},
		{"crd", "customresourcedefinitions.apiextensions.k8s.io v1 CustomResourceDefinition cluster"},
		{"crontabs", "crontabs.stable.example.com v1 CronTab namespaced"},
		{"crontab", "crontabs.stable.example.com v1 CronTab namespaced"},
		{"ct", "crontabs.stable.example.com v1 CronTab namespaced"},
		{"crontabs.stable.example.com", "crontabs.stable.example.com v1 CronTab namespaced"},
		{"leases.coordination.k8s.io", "leases.coordination.k8s.io v1 Lease namespaced"},
	}
	for _, aggregated := range []bool{true, false} {
		c, _ := discoveryServer(t, aggregated)
		for _, tt := range tests {
			r, err := c.Resolve(context.Background(), tt.name)
			if err != nil {
				t.Fatalf("aggregated=%v Resolve(%q): %v", aggregated, tt.name, err)
			}
			scope := "cluster"
			if r.Namespaced {
				scope = "namespaced"
			}
			if got := r.String() + " " + r.Version + " " + r.Kind + " " + scope; got != tt.want {
				t.Errorf("aggregated=%v Resolve(%q) = %s, want %s", aggregated, tt.name, got, tt.want)
			}
		}
	}
}

func TestResolve_unknown_names_fail_like_kubectl(t *testing.T) {
	c, _ := discoveryServer(t, true)
	for _, name := range []string{"pots", "deployments.batch", "deployments.v2.apps", "", "pods.", "."} {
		_, err := c.Resolve(context.Background(), name)
		var unknown *apiclient.ErrUnknownResource
		if !errors.As(err, &unknown) {
			t.Errorf("Resolve(%q) err = %v, want ErrUnknownResource", name, err)
			continue
		}
		if want := `the server doesn't have a resource type "` + name + `"`; err.Error() != want {
			t.Errorf("Resolve(%q) err = %q, want %q", name, err, want)
		}
	}
}

func TestDiscovery_aggregated_takes_two_requests_and_is_cached(t *testing.T) {
	c, calls := discoveryServer(t, true)
	for i := 0; i < 3; i++ {
		if _, err := c.Resolve(context.Background(), "pods"); err != nil {
			t.Fatal(err)
		}
	}
	if got := calls.Load(); got != 2 {
		t.Fatalf("%d requests, want 2 (/api, /apis), then the cache", got)
	}
	c.Invalidate()
	if _, err := c.Resolve(context.Background(), "pods"); err != nil {
		t.Fatal(err)
	}
	if got := calls.Load(); got != 4 {
		t.Fatalf("%d requests after Invalidate, want 4", got)
	}
}

func TestDiscovery_both_protocols_find_the_same_resources(t *testing.T) {
	agg, _ := discoveryServer(t, true)
	leg, _ := discoveryServer(t, false)
	names := func(c *apiclient.Client) string {
		rs, err := c.PreferredResources(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rs {
			out = append(out, r.String()+"/"+r.Version+"/"+r.Kind+"/"+strings.Join(r.ShortNames, ","))
		}
		return strings.Join(out, " ")
	}
	a, l := names(agg), names(leg)
	if a != l {
		t.Fatalf("aggregated:\n%s\nlegacy:\n%s", a, l)
	}
	if !strings.Contains(a, "pods/v1/Pod/po") || !strings.Contains(a, "crontabs.stable.example.com/v1/CronTab/ct") {
		t.Fatalf("missing pods or crontabs: %s", a)
	}
}

func TestDiscovery_failure_names_the_path(t *testing.T) {
	c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(503)
		_, _ = w.Write([]byte("<html><body>upstream down</body></html>"))
	})
	_, err := c.Resolve(context.Background(), "pods")
	if err == nil || !strings.Contains(err.Error(), "discovery: GET") || !strings.Contains(err.Error(), "/api: 503") {
		t.Fatalf("err = %v", err)
	}
}

// One group-version that cannot be read (an aggregated API whose server is down:
// 503) leaves the rest of discovery usable: resources of healthy groups resolve,
// ServerResources returns them with a *PartialDiscoveryError naming the broken
// one, and a name that could be in it fails saying so (issue 16: every command
// failed). Resolve asks once more before it says so.
func TestDiscovery_goes_on_without_a_broken_group(t *testing.T) {
	var batchCalls atomic.Int32
	c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/apis/batch/v1" {
			batchCalls.Add(1)
			writeJSON(w, 503, statusBody(503, "ServiceUnavailable", "the backend is down"))
			return
		}
		name := strings.ReplaceAll(strings.TrimPrefix(r.URL.Path, "/"), "/", "_") + ".json"
		body, err := os.ReadFile(filepath.Join("testdata", "discovery", "legacy", name))
		if err != nil {
			writeJSON(w, 404, statusBody(404, "NotFound", "the server could not find the requested resource"))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	})
	ctx := context.Background()
	if r, err := c.Resolve(ctx, "deploy"); err != nil || r.Name != "deployments" {
		t.Fatalf("resolve deploy: %v, %v", r, err)
	}
	resources, err := c.ServerResources(ctx)
	var partial *apiclient.PartialDiscoveryError
	if !errors.As(err, &partial) || partial.Unread["batch/v1"] == nil || len(resources) < 40 {
		t.Fatalf("ServerResources: %d resources, err %v; want the rest and batch/v1 unread", len(resources), err)
	}
	_, err = c.Resolve(ctx, "cronjobs")
	if err == nil || !strings.Contains(err.Error(), "batch/v1") || !strings.Contains(err.Error(), "503") {
		t.Fatalf("resolve cronjobs: %v, want an error naming batch/v1 and its 503", err)
	}
	if n := batchCalls.Load(); n != 2 {
		t.Fatalf("batch/v1 asked %d times, want 2 (once more before giving up)", n)
	}
}

// The legacy protocol's documents, one per group-version, share one bound, as
// the pages of a list do: 64 MiB together (the aggregated protocol's one
// document has the same), and at most 5,000 group-versions named. Past the
// bytes, the group-versions left are not asked for and are unread; past the
// count, discovery fails at once. Each document was bounded alone before: a
// server naming a thousand groups of 64 MiB each could fill memory.
func TestDiscovery_legacy_documents_share_one_bound(t *testing.T) {
	t.Run("bytes", func(t *testing.T) {
		const groups = 70 // 1 MiB each: the 65th passes 64 MiB
		var asked atomic.Int32
		pad := strings.Repeat(" ", 1<<20)
		c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			switch {
			case r.URL.Path == "/api":
				_, _ = w.Write([]byte(`{"versions":[]}`))
			case r.URL.Path == "/apis":
				var gs []string
				for i := range groups {
					gs = append(gs, fmt.Sprintf(`{"name":"g%d.example.com","versions":[{"groupVersion":"g%d.example.com/v1","version":"v1"}],"preferredVersion":{"version":"v1"}}`, i, i))
				}
				_, _ = w.Write([]byte(`{"groups":[` + strings.Join(gs, ",") + `]}`))
			default:
				asked.Add(1)
				_, _ = w.Write([]byte(`{"resources":[{"name":"things","singularName":"thing","namespaced":true,"kind":"Thing","verbs":["list"]}]}` + pad))
			}
		})
		resources, err := c.ServerResources(context.Background())
		var partial *apiclient.PartialDiscoveryError
		if !errors.As(err, &partial) || len(partial.Unread) < groups-65 || len(resources) > 64 {
			t.Fatalf("%d resources, err %v: want at most 64 and the rest unread", len(resources), err)
		}
		if n := asked.Load(); n > 66 {
			t.Fatalf("%d group-versions asked for: the ones past the bound should not be", n)
		}
	})
	t.Run("group-versions", func(t *testing.T) {
		var asked atomic.Int32
		c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			switch r.URL.Path {
			case "/api":
				_, _ = w.Write([]byte(`{"versions":[]}`))
			case "/apis":
				var vs []string
				for i := range 6000 {
					vs = append(vs, fmt.Sprintf(`{"groupVersion":"g.example.com/v%d","version":"v%d"}`, i, i))
				}
				_, _ = w.Write([]byte(`{"groups":[{"name":"g.example.com","versions":[` + strings.Join(vs, ",") + `]}]}`))
			default:
				asked.Add(1)
				_, _ = w.Write([]byte(`{"resources":[]}`))
			}
		})
		_, err := c.ServerResources(context.Background())
		if err == nil || !strings.Contains(err.Error(), "more than 5000 group-versions") {
			t.Fatalf("err = %v, want the count refused", err)
		}
		if n := asked.Load(); n != 0 {
			t.Fatalf("%d group-versions asked for, want none", n)
		}
	})
}
