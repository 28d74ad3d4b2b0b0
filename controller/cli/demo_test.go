package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/controller/cli"
)

// The trace prefixes of every stage the demo is meant to show, and the lines that
// prove the story ran to its end.
var demoWants = []string{
	"\nlistwatch ", "\nfifo ", "\nstore ", "\nhandler ", "\nqueue ", "\ncontroller ",
	`msg="restarted deployment" deployment=demo/tools`,
	"demo: 3/4 the controller restarted deployment demo/tools: restartedAt=",
	"\nhandler delete demo/web-2 ",
	"demo: done in ",
}

// checkDemo fails unless out (stdout and stderr together) holds every line of
// the story.
func checkDemo(t *testing.T, out string) {
	t.Helper()
	out = "\n" + out
	for _, want := range demoWants {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
}

func TestDemo_plays_the_story_through_every_stage_and_exits_0(t *testing.T) {
	// A kubeconfig that would fail if the demo read it: the demo must not.
	env := map[string]string{"KUBECONFIG": "/nonexistent/config"}
	code, stdout, stderr := run(t, env, "demo")
	if got, want := code, 0; got != want {
		t.Fatalf("exit %d, want %d; stderr:\n%s", got, want, stderr)
	}
	checkDemo(t, stdout+stderr)
	if strings.Contains(stderr, "no cluster config found") {
		t.Fatalf("`kubewire demo` said it fell back to the demo:\n%s", stderr)
	}
}

// Stopped before the story was told, the demo says where it was and exits 130:
// a script must not take an unfinished demo for a finished one (issue 29).
func TestDemo_interrupted_stops_cleanly_and_exits_130(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // Ctrl-C before the story could begin
	var stdout, stderr bytes.Buffer
	code := cli.Main(ctx, []string{"demo"}, cli.Env{Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }})
	if got, want := code, 130; got != want {
		t.Fatalf("exit %d, want %d; stderr:\n%s", got, want, stderr.String())
	}
	if !strings.Contains(stdout.String(), "\ndemo: interrupted after ") || strings.Contains(stdout.String(), "demo: done in ") {
		t.Fatalf("stdout:\n%s", stdout.String())
	}
}

// With no command, kubewire runs the controller when there is a cluster to run
// it on, the demo when there is no config at all, and fails (without a demo)
// when there is a config that does not load.
func TestNo_command_runs_the_demo_only_when_no_cluster_config_exists(t *testing.T) {
	srv := apitest.NewServer(nil)
	defer srv.Close()
	kubeconfig := writeKubeconfig(t, srv)

	tests := []struct {
		name     string
		env      map[string]string
		args     []string
		wantCode int
		wantDemo bool
		wantErr  string // "" for none
	}{
		{"no_kubeconfig_anywhere_runs_the_demo", map[string]string{"HOME": t.TempDir()}, nil, 0, true, ""},
		{"no_HOME_either_runs_the_demo", nil, nil, 0, true, ""},
		{"a_kubeconfig_from_KUBECONFIG_runs_the_controller", map[string]string{"KUBECONFIG": kubeconfig}, nil, 0, false, ""},
		{"a_missing_kubeconfig_flag_is_an_error", map[string]string{"HOME": t.TempDir()}, []string{"--kubeconfig", "/nonexistent/config"}, 1, false, "/nonexistent/config"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Cancelled from the start: `run` connects, says where it acts, and
			// stops at once; the demo is bounded by its own story.
			ctx, cancel := context.WithCancel(context.Background())
			if !tt.wantDemo {
				cancel()
			}
			defer cancel()
			var stdout, stderr bytes.Buffer
			code := cli.Main(ctx, tt.args, cli.Env{Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string { return tt.env[k] }})
			if got, want := code, tt.wantCode; got != want {
				t.Fatalf("exit %d, want %d; stderr:\n%s", got, want, stderr.String())
			}
			fellBack := strings.HasPrefix(stderr.String(), "no cluster config found (--kubeconfig, $KUBECONFIG, ~/.kube/config, in-cluster): running the demo\n")
			if got, want := fellBack, tt.wantDemo; got != want {
				t.Fatalf("fell back to the demo: %v, want %v; stderr:\n%s", got, want, stderr.String())
			}
			if tt.wantDemo {
				checkDemo(t, stdout.String()+stderr.String())
			}
			if !tt.wantDemo && tt.wantErr == "" && !strings.Contains(stderr.String(), "kubewire run: context ") {
				t.Fatalf("the controller did not run:\n%s", stderr.String())
			}
			if tt.wantErr != "" && !strings.Contains(stderr.String(), tt.wantErr) {
				t.Fatalf("stderr %q lacks %q", stderr.String(), tt.wantErr)
			}
		})
	}
}

func TestHelp_with_no_config_still_prints_help(t *testing.T) {
	code, stdout, stderr := run(t, map[string]string{"HOME": t.TempDir()}, "--help")
	if code != 0 || !strings.Contains(stdout, "demo") || !strings.Contains(stdout, "record RESOURCE -o FILE") || stderr != "" {
		t.Fatalf("exit %d stdout %q stderr %q", code, stdout, stderr)
	}
}

// writeKubeconfig writes a kubeconfig for srv: its URL and CA, no credentials.
func writeKubeconfig(t *testing.T, srv *apitest.Server) string {
	t.Helper()
	cfg := srv.Config()
	ca := filepath.Join(t.TempDir(), "ca.crt")
	if err := os.WriteFile(ca, cfg.TLS.CAData, 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "config")
	body := "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: " + cfg.Server + "\n    certificate-authority: " + ca + "\n" +
		"users:\n- name: u\n  user: {}\ncontexts:\n- name: ctx\n  context: {cluster: c, user: u, namespace: demo}\ncurrent-context: ctx\n"
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// The demo tells the same story every run: the same lines in the same order,
// stdout and stderr as a terminal shows them together, once durations,
// addresses and times are masked. Its two informers and its controller run
// concurrently; the story is printed step by step, each step's hops in one
// causal order (demo_order.go), so a reader comparing with README can tell a
// bug from a race (issue 36: 10 different stories in 10 runs).
func TestDemo_tells_the_same_story_every_run(t *testing.T) {
	var first string
	for i := range 8 {
		var out bytes.Buffer
		code := cli.Main(context.Background(), []string{"demo"}, cli.Env{Stdout: &out, Stderr: &out, Getenv: func(string) string { return "" }})
		if code != 0 {
			t.Fatalf("run %d: exit %d:\n%s", i+1, code, out.String())
		}
		got := maskDemo(out.String())
		if i == 0 {
			first = got
			checkDemo(t, out.String())
			// A LIST, not a streaming list: that one gives up on its initial
			// events after a second of silence, so a reader holding a hop in
			// step mode would change the story (--step tells the same one).
			if !strings.Contains(got, "\nlistwatch LIST ") || strings.Contains(got, "sendInitialEvents") {
				t.Fatalf("the demo does not list with LIST:\n%s", got)
			}
			continue
		}
		if got != first {
			t.Fatalf("run %d told another story than run 1:\n%s", i+1, lineDiff(first, got))
		}
	}
}

// maskDemo blanks what may differ between two tellings of one story:
// durations, the server's address, times of day.
func maskDemo(s string) string {
	for _, m := range []struct{ re, with string }{
		{`https?://127\.0\.0\.1:[0-9]+`, "URL"},
		{`[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z`, "TIME"},
		{`\b[0-9][0-9.]*(ns|µs|ms|s|m|h)([0-9][0-9.]*(ns|µs|ms|s))*\b`, "DUR"},
	} {
		s = regexp.MustCompile(m.re).ReplaceAllString(s, m.with)
	}
	return s
}

// lineDiff shows where two stories part: the lines from the first that differs.
func lineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("from line %d:\nrun 1: %s\n…\nthis:  %s\n…\n\nrun 1 whole:\n%s\nthis run whole:\n%s", i+1, al[i], bl[i], a, b)
		}
	}
	return fmt.Sprintf("one is longer:\n%s\n---\n%s", a, b)
}
