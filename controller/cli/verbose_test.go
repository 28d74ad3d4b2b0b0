package cli_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kubewire/kubewire/controller/cli"
)

// At -v 6 every request is a log line, the Reflector's LIST and watch included:
// for sync, and for run, whose Manager builds the Reflector.
// -v 6 logs every request; the Reflector's are a streaming list by default
// (one watch with sendInitialEvents), or, with client-go's switch
// KUBE_FEATURE_WatchListClient=false, a LIST and then a watch.
func TestVerbose_6_logs_the_Reflectors_list_and_watch(t *testing.T) {
	kubeconfig, _ := recordServer(t)
	for _, tt := range []struct {
		name  string
		args  []string
		paged string // KUBE_FEATURE_WatchListClient
		want  []string
	}{
		{"sync", []string{"sync", "pods", "--watch"}, "", []string{"sendInitialEvents=true&timeoutSeconds"}},
		{"run", []string{"run", "-n", "default"}, "", []string{"sendInitialEvents=true&timeoutSeconds"}},
		{"sync_paged", []string{"sync", "pods", "--watch"}, "false", []string{"pods?limit=500&resourceVersion=0", "allowWatchBookmarks=true&resourceVersion="}},
		{"run_paged", []string{"run", "-n", "default"}, "false", []string{"pods?labelSelector=app%3Dnginx&limit=500", "watch=true"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			// The pods' watch: run watches Deployments too, whose watch may go out first.
			stderr := &signalWriter{line: []string{"/api/v1/namespaces/default/pods?", "watch=true"}, seen: make(chan struct{})}
			done := make(chan int, 1)
			env := func(k string) string { return map[string]string{"KUBE_FEATURE_WatchListClient": tt.paged}[k] }
			go func() {
				done <- cli.Main(ctx, append(tt.args, "-v", "6", "--kubeconfig", kubeconfig), cli.Env{Stdout: &bytes.Buffer{}, Stderr: stderr, Getenv: env})
			}()
			select {
			case <-stderr.seen:
				cancel()
			case <-ctx.Done():
			}
			// Stopped as soon as the watch went out, sync may not have synced
			// yet: 130 says so (issue 29); run's designed end is the signal.
			if code := <-done; code != 0 && code != 130 {
				t.Errorf("exit %d, want 0 or 130", code)
			}
			var requests []string
			for _, line := range strings.Split(stderr.String(), "\n") {
				if strings.Contains(line, "level=DEBUG msg=request verb=GET") && strings.Contains(line, "/api/v1/namespaces/default/pods?") {
					requests = append(requests, line)
				}
			}
			for _, want := range tt.want {
				if !strings.Contains(strings.Join(requests, "\n"), want) {
					t.Errorf("no request of the Reflector has %q:\n%s", want, strings.Join(requests, "\n"))
				}
			}
		})
	}
}
