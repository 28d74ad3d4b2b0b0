package cli_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/controller/cli"
)

// Ctrl-C in the middle of a request is the contract's clean stop: one summary
// line and exit 0, not "error: context canceled" and exit 1 (issue 16). Main's
// ctx stands for main's signal.NotifyContext.
func TestGet_interrupted_mid_request_exits_0_with_a_summary(t *testing.T) {
	arrived := make(chan struct{}, 1)
	path := discoveryKubeconfig(t, func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-r.Context().Done() // a server that has not answered yet
	})
	for _, tt := range []struct {
		args []string
		what string
	}{
		{[]string{"get", "pods"}, "get pods"},
		{[]string{"get", "pods", "-o", "name"}, "get pods"},
		{[]string{"get", "pods", "web", "-o", "yaml"}, "get pods web"},
	} {
		args := tt.args
		ctx, interrupt := context.WithCancel(context.Background())
		var stdout, stderr bytes.Buffer
		done := make(chan int, 1)
		go func() {
			done <- cli.Main(ctx, args, cli.Env{Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string {
				return map[string]string{"KUBECONFIG": path}[k]
			}})
		}()
		<-arrived
		interrupt()
		code := <-done
		if code != 0 || !strings.HasPrefix(stderr.String(), "interrupted after ") ||
			!strings.HasSuffix(stderr.String(), ": "+tt.what+" did not finish\n") {
			t.Errorf("%v interrupted: exit %d, stderr %q; want exit 0 and one line saying %s did not finish", args, code, stderr.String(), tt.what)
		}
	}
}
