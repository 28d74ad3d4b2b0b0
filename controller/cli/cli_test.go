package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kubewire/kubewire/controller/cli"
)

// run runs the command in-process with a fake environment and returns its exit
// code, stdout and stderr.
func run(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := cli.Main(context.Background(), args, cli.Env{Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string { return env[k] }})
	return code, stdout.String(), stderr.String()
}

// discoveryKubeconfig starts a TLS server that serves the discovery documents
// recorded from kube-apiserver 1.32, and every other request with other (a 404
// when nil), and writes a kubeconfig for it.
func discoveryKubeconfig(t *testing.T, other http.HandlerFunc) string {
	t.Helper()
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.ReplaceAll(strings.TrimPrefix(r.URL.Path, "/"), "/", "_") + ".json"
		body, err := os.ReadFile(filepath.Join("..", "..", "apiclient", "testdata", "discovery", "legacy", name))
		switch {
		case err == nil:
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(body)
		case other != nil:
			other(w, r)
		default:
			w.WriteHeader(404)
		}
	}))
	t.Cleanup(ts.Close)
	return insecureKubeconfig(t, ts.URL)
}

// insecureKubeconfig writes a kubeconfig for a test server at url, with a token
// and without checking its certificate, and returns its path.
func insecureKubeconfig(t *testing.T, url string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config")
	cfg := "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: " + url + "\n    insecure-skip-tls-verify: true\n" +
		"users:\n- name: u\n  user:\n    token: s3cret-token\ncontexts:\n- name: ctx\n  context: {cluster: c, user: u}\ncurrent-context: ctx\n"
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestUsage_errors_exit_2_with_one_line_and_a_hint(t *testing.T) {
	for _, args := range [][]string{
		{"get", "pods", "--bogus"},
		{"frobnicate"},
		{"get", "pods", "-o", "xml"},
		{"api-resources", "-o", "json"},
		// Arguments a command would ignore or misread (issue 16, rule 4).
		{"get", "pods", ""},
		{"get", ""},
		{"api-resources", "extra"},
		{"sync", "pods", "more"},
		{"run", "foo-that-does-not-exist"},
		{"run", "podrestart", "--install-crd"},
		{"sync", "pods", "--until-events", "0"},
		{"sync", "pods", "--until-events=-5"},
		{"record", "pods", "-o", "x.rec", "--events", "0"},
		{"run", "--workers", "0"},
		{"sync", "pods", "--max-list-mib", "0"},
		{"get", "pods", "--max-list-objects=-1"},
		{"watch", "pods", "--max-list-mib", "10"},
	} {
		code, stdout, stderr := run(t, nil, args...)
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if code != 2 || stdout != "" || len(lines) != 2 || !strings.HasPrefix(lines[0], "error: ") || lines[1] != "See 'kubewire --help' for usage." {
			t.Errorf("%q: exit %d stdout %q stderr %q", args, code, stdout, stderr)
		}
	}
}

func TestHelp_lists_the_commands(t *testing.T) {
	code, stdout, _ := run(t, nil, "--help")
	if code != 0 || !strings.Contains(stdout, "api-resources") || !strings.Contains(stdout, "-n, --namespace") {
		t.Fatalf("exit %d help %q", code, stdout)
	}
}

func TestRuntime_errors_exit_1_with_one_line(t *testing.T) {
	cfg := discoveryKubeconfig(t, nil)
	tests := []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"get", "pots", "--kubeconfig", cfg}, nil, `error: the server doesn't have a resource type "pots"`},
		{[]string{"get", "pods", "--kubeconfig", "/nonexistent/config"}, nil, "/nonexistent/config"},
		{[]string{"get", "pods", "--kubeconfig", cfg, "-n", "x"}, nil, `error: GET https://127.0.0.1:`}, // the recording serves no pods: 404
		{[]string{"get", "pods", "--context", "nope", "--kubeconfig", cfg}, nil, `"nope"`},
	}
	for _, tt := range tests {
		code, _, stderr := run(t, tt.env, tt.args...)
		if code != 1 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tt.want) {
			t.Errorf("%q: exit %d stderr %q, want exit 1 and one line containing %q", tt.args, code, stderr, tt.want)
		}
		if strings.Contains(stderr, "s3cret-token") {
			t.Errorf("%q: the token leaked into %q", tt.args, stderr)
		}
	}
}

func TestAPIResources_from_recorded_discovery(t *testing.T) {
	code, stdout, stderr := run(t, nil, "api-resources", "--kubeconfig", discoveryKubeconfig(t, nil))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(stdout, "\n")
	if !strings.HasPrefix(lines[0], "NAME") || !strings.Contains(stdout, "\npods                                po           v1                                true         Pod\n") {
		t.Fatalf("output:\n%s", stdout)
	}
	if !strings.Contains(stdout, "deployments                         deploy       apps/v1") || !strings.Contains(stdout, "crontabs                            ct           stable.example.com/v1") {
		t.Fatalf("missing deployments or crontabs:\n%s", stdout)
	}
}

func TestSelectors_are_checked_before_any_request(t *testing.T) {
	var requests atomic.Int32
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.WriteHeader(500)
	}))
	t.Cleanup(ts.Close)
	cfg := insecureKubeconfig(t, ts.URL)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"get", "pods", "-l", "app in (web"}, `error: -l/--selector: invalid label selector "app in (web": at offset 11:`},
		{[]string{"watch", "pods", "--selector=app=web,"}, `error: -l/--selector: invalid label selector "app=web,": at offset 8:`},
		{[]string{"sync", "pods", "-lExample.com/app=web"}, `error: -l/--selector: invalid label selector "Example.com/app=web": at offset 0: key`},
		{[]string{"run", "-l", "app=web tier"}, `error: -l/--selector: invalid label selector "app=web tier": at offset 8:`},
		{[]string{"record", "pods", "-o", "x.rec", "--field-selector", "metadata.name=a=b"}, `error: --field-selector: invalid field selector "metadata.name=a=b": at offset 15:`},
		{[]string{"get", "pods", "--field-selector", "status.phase = Running"}, `error: --field-selector: invalid field selector "status.phase = Running": at offset 0:`},
	} {
		code, stdout, stderr := run(t, nil, append(tc.args, "--kubeconfig", cfg)...)
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if code != 2 || stdout != "" || len(lines) != 2 || !strings.HasPrefix(lines[0], tc.want) {
			t.Errorf("%q: exit %d stdout %q stderr %q; want exit 2 and a line starting %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
	if n := requests.Load(); n != 0 {
		t.Fatalf("%d requests reached the server; a bad selector must stop the command before any", n)
	}
	// A good selector passes the check and reaches the server (which fails: exit 1).
	if code, _, stderr := run(t, nil, "get", "pods", "-l", "app in (web, db),!legacy", "--field-selector", `metadata.name!=a\,b`, "--kubeconfig", cfg); code != 1 || requests.Load() == 0 {
		t.Fatalf("a valid selector: exit %d, %d requests, stderr %q", code, requests.Load(), stderr)
	}
}

// Issue 39: an error line and --trace lines carry the server's words (a
// Status reason, object names), and printed escape sequences and control
// characters as the server sent them, to the terminal of whoever ran the
// command. They are written as Go escapes now, on one line as before.
func TestOutput_escapes_what_a_terminal_would_act_on(t *testing.T) {
	const hostile = "\x1b]0;pwned\x07\x1b[31m\u009b2J"
	quoted := func(s string) []byte { b, _ := json.Marshal(s); return b }
	cfg := discoveryKubeconfig(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/api/v1/namespaces/x/pods" && r.URL.Query().Get("watch") == "":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[{"metadata":{"name":%s,"namespace":"x","resourceVersion":"5"}}]}`, quoted("web"+hostile))
		case r.URL.Path == "/api/v1/namespaces/x/pods":
			<-r.Context().Done() // the watch: nothing happens
		default:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(404)
			fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":%s,"code":404}`, quoted("NotFound"+hostile))
		}
	})
	for _, args := range [][]string{
		{"get", "pods", "-n", "y", "--kubeconfig", cfg},
		{"sync", "pods", "-n", "x", "--trace", "--kubeconfig", cfg},
	} {
		_, _, stderr := run(t, nil, args...)
		if !strings.Contains(stderr, `\x1b]0;pwned\a\x1b[31m\u009b2J`) {
			t.Errorf("%q: stderr %q, want the server's words there, escaped", args, stderr)
		}
		if i := strings.IndexAny(stderr, "\x1b\x07\u009b"); i >= 0 {
			t.Errorf("%q: a control character at byte %d of stderr %q", args, i, stderr)
		}
	}
}
