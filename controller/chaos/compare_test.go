package chaos_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/informer"
)

// absent is what a reconciler saw of a key that was not in the cache.
const absent = "absent"

// views is the reconciler of the chaos run: it reads its Request's object from the
// informer's cache, as any level-based reconciler does, and records per key the
// resourceVersion it read, or absent. Safe for concurrent use (two workers).
type views struct {
	inf *informer.Informer

	mu   sync.Mutex
	last map[string]string
	n    int
}

func (v *views) Reconcile(_ context.Context, req controller.Request) (controller.Result, error) {
	seen := absent
	if o, err := v.inf.Get(req.Namespace, req.Name); err == nil {
		seen = o.Metadata.ResourceVersion
	}
	v.mu.Lock()
	v.last[req.String()] = seen
	v.n++
	v.mu.Unlock()
	return controller.Result{}, nil
}

// snapshot copies the last views, and says how many reconciles there were.
func (v *views) snapshot() (map[string]string, int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := make(map[string]string, len(v.last))
	for k, rv := range v.last {
		out[k] = rv
	}
	return out, v.n
}

// versions maps each object's key to its resourceVersion.
func versions(objs []*apiclient.Object) map[string]string {
	out := make(map[string]string, len(objs))
	for _, o := range objs {
		out[o.Key()] = o.Metadata.ResourceVersion
	}
	return out
}

// diff is what "converged" means, as the differences that stand in its way, one
// sorted line each; none means converged:
//
//   - the cache holds exactly the server's keys, each at the server's resourceVersion;
//   - the reconciler's last view of every key on the server is that resourceVersion,
//     and of every other key it ever reconciled, absent.
func diff(server, cache, seen map[string]string) []string {
	var out []string
	for key, rv := range server {
		switch got, ok := cache[key]; {
		case !ok:
			out = append(out, fmt.Sprintf("cache: %s missing, server has rv=%s", key, rv))
		case got != rv:
			out = append(out, fmt.Sprintf("cache: %s at rv=%s, server has rv=%s", key, got, rv))
		}
		switch got, ok := seen[key]; {
		case !ok:
			out = append(out, fmt.Sprintf("reconciler: %s never reconciled, server has rv=%s", key, rv))
		case got != rv:
			out = append(out, fmt.Sprintf("reconciler: %s last saw %s, server has rv=%s", key, got, rv))
		}
	}
	for key, rv := range cache {
		if _, ok := server[key]; !ok {
			out = append(out, fmt.Sprintf("cache: %s at rv=%s, not on the server", key, rv))
		}
	}
	for key, got := range seen {
		if _, ok := server[key]; !ok && got != absent {
			out = append(out, fmt.Sprintf("reconciler: %s last saw rv=%s, not on the server", key, got))
		}
	}
	sort.Strings(out)
	return out
}

// The chaos test can only fail if diff can: each way of being behind is caught.
func TestDiff_tells_a_converged_pipeline_from_one_that_is_not(t *testing.T) {
	server := map[string]string{"ns/a": "10", "ns/b": "12"}
	for _, tc := range []struct {
		name        string
		cache, seen map[string]string
		want        string
	}{
		{"converged",
			map[string]string{"ns/a": "10", "ns/b": "12"},
			map[string]string{"ns/a": "10", "ns/b": "12", "ns/gone": absent},
			""},
		{"cache_misses_an_object",
			map[string]string{"ns/a": "10"},
			map[string]string{"ns/a": "10", "ns/b": "12"},
			"cache: ns/b missing, server has rv=12"},
		{"cache_holds_a_stale_version",
			map[string]string{"ns/a": "9", "ns/b": "12"},
			map[string]string{"ns/a": "10", "ns/b": "12"},
			"cache: ns/a at rv=9, server has rv=10"},
		{"cache_holds_a_deleted_object",
			map[string]string{"ns/a": "10", "ns/b": "12", "ns/gone": "7"},
			map[string]string{"ns/a": "10", "ns/b": "12"},
			"cache: ns/gone at rv=7, not on the server"},
		{"reconciler_saw_an_old_version",
			map[string]string{"ns/a": "10", "ns/b": "12"},
			map[string]string{"ns/a": "9", "ns/b": "12"},
			"reconciler: ns/a last saw 9, server has rv=10"},
		{"reconciler_never_heard_of_an_object",
			map[string]string{"ns/a": "10", "ns/b": "12"},
			map[string]string{"ns/a": "10"},
			"reconciler: ns/b never reconciled, server has rv=12"},
		{"reconciler_missed_a_delete",
			map[string]string{"ns/a": "10", "ns/b": "12"},
			map[string]string{"ns/a": "10", "ns/b": "12", "ns/gone": "7"},
			"reconciler: ns/gone last saw rv=7, not on the server"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := strings.Join(diff(server, tc.cache, tc.seen), "\n"); got != tc.want {
				t.Fatalf("diff:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}
