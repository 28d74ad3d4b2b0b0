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
func TestVerbose_6_logs_the_Reflectors_LIST_and_watch(t *testing.T) {
	kubeconfig, _ := recordServer(t)
	for _, args := range [][]string{
		{"sync", "pods", "--watch"},
		{"run", "-n", "default"},
	} {
		t.Run(args[0], func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			stderr := &signalWriter{want: "watch=true", seen: make(chan struct{})}
			done := make(chan int, 1)
			go func() {
				done <- cli.Main(ctx, append(args, "-v", "6", "--kubeconfig", kubeconfig), cli.Env{Stdout: &bytes.Buffer{}, Stderr: stderr, Getenv: func(string) string { return "" }})
			}()
			select {
			case <-stderr.seen:
				cancel()
			case <-ctx.Done():
			}
			if code := <-done; code != 0 {
				t.Errorf("exit %d", code)
			}
			var list, watch bool
			for _, line := range strings.Split(stderr.String(), "\n") {
				if !strings.Contains(line, "level=DEBUG msg=request verb=GET") || !strings.Contains(line, "/api/v1/namespaces/default/pods?") {
					continue
				}
				watch = watch || strings.Contains(line, "watch=true")
				list = list || !strings.Contains(line, "watch=true")
			}
			if !list || !watch {
				t.Errorf("request lines of the Reflector: LIST %v, watch %v; want both:\n%s", list, watch, stderr.String())
			}
		})
	}
}
