package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubewire/kubewire/controller/cli"
)

// A server whose list never ends — a new continue token on every page, a
// streaming list that never sends its end bookmark — makes sync and get stop at
// the list's bounds with one line that says which bound and how to raise it, and
// exit 1 (issue 29: sync passed 6 GB, get 570 MB). The Reflector under sync would
// try again for ever, as a controller's must; sync gives up at the first such
// list, since every try would end the same way.
var progressLine = regexp.MustCompile(`^listed \d+ objects…\n$`)

func TestSync_and_get_end_with_one_line_at_a_list_over_its_bounds(t *testing.T) {
	pod := `{"metadata":{"name":"p%d","namespace":"demo","resourceVersion":"1","annotations":{"pad":"` + strings.Repeat("x", 4000) + `"}}}`
	var requests atomic.Int64
	cfg := discoveryKubeconfig(t, func(w http.ResponseWriter, r *http.Request) {
		if requests.Add(1) > 2000 {
			http.Error(w, "enough", 500) // the old code would list on without end
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("watch") == "true" { // a streaming list: ADDED without end
			for i := 0; ; i++ {
				if _, err := fmt.Fprintf(w, `{"type":"ADDED","object":`+pod+"}\n", i); err != nil || i > 1_000_000 {
					return
				}
			}
		}
		n := requests.Load()
		var items []string
		for i := range 50 {
			items = append(items, fmt.Sprintf(pod, n*100+int64(i)))
		}
		fmt.Fprintf(w, `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1","continue":"c%d"},"items":[%s]}`, n, strings.Join(items, ","))
	})
	for _, tt := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"sync", "pods", "-n", "demo", "--max-list-mib", "2"}, nil, "error: streaming list pods: the list is over 2 MiB (decompressed) after "},
		{[]string{"sync", "pods", "-n", "demo", "--max-list-mib", "2"}, map[string]string{"KUBE_FEATURE_WatchListClient": "false"}, "error: list pods: the list is over 2 MiB (decompressed) after "},
		{[]string{"sync", "pods", "-n", "demo", "--max-list-objects", "300"}, map[string]string{"KUBE_FEATURE_WatchListClient": "false"}, "error: list pods: more than 300 objects in one list: refused (ListLimits.Objects, --max-list-objects)"},
		{[]string{"get", "pods", "-n", "demo", "-o", "name", "--max-list-mib", "2"}, nil, "error: list pods: the list is over 2 MiB (decompressed) after "},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		var stdout, stderr bytes.Buffer
		code := cli.Main(ctx, append(tt.args, "--kubeconfig", cfg), cli.Env{Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string { return tt.env[k] }})
		cancel()
		// A list that takes over a second is told of once a second ("listed N
		// objects…", sync.go): on a loaded machine that line may come first.
		var lines []string
		for _, l := range strings.SplitAfter(stderr.String(), "\n") {
			if l != "" && !progressLine.MatchString(l) {
				lines = append(lines, l)
			}
		}
		if code != 1 || len(lines) != 1 || !strings.HasPrefix(lines[0], tt.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 1 and one line starting %q", tt.args, code, stderr.String(), tt.want)
		}
	}
}
