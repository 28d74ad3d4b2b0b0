package cli_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/controller/cli"
)

// Ctrl-C in the middle of a request is the contract's clean stop: one summary
// line and exit 0, not "error: context canceled" and exit 1 (issue 16). Main's
// ctx stands for main's signal.NotifyContext.
func TestGet_interrupted_mid_request_exits_0_with_a_summary(t *testing.T) {
	arrived := make(chan struct{}, 1)
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.ReplaceAll(strings.TrimPrefix(r.URL.Path, "/"), "/", "_") + ".json"
		if body, err := os.ReadFile(filepath.Join("..", "..", "apiclient", "testdata", "discovery", "legacy", name)); err == nil {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(body)
			return
		}
		arrived <- struct{}{}
		<-r.Context().Done() // a server that has not answered yet
	}))
	defer ts.Close()
	path := filepath.Join(t.TempDir(), "config")
	cfg := "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: " + ts.URL + "\n    insecure-skip-tls-verify: true\n" +
		"users:\n- name: u\n  user: {}\ncontexts:\n- name: ctx\n  context: {cluster: c, user: u}\ncurrent-context: ctx\n"
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
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
