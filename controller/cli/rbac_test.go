package cli_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files of rbac and manifests")

// golden compares got with testdata/NAME, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from what the command printed (go test -update rewrites it):\n%s", path, got)
	}
}

// rbac prints the role each built-in controller needs, derived by running it
// on an API server in the process: the same bytes every time, and none of the
// user's cluster read (no kubeconfig is given).
func TestRBAC_prints_the_roles_a_controller_needs(t *testing.T) {
	for _, tc := range []struct {
		file string
		args []string
	}{
		{"podrestart.yaml", []string{"rbac", "-n", "demo"}},
		{"podrestart-leader-elect.yaml", []string{"rbac", "podrestart", "-n", "demo", "--leader-elect"}},
		{"foo.yaml", []string{"rbac", "foo", "-n", "demo"}},
		{"foo-leader-elect.yaml", []string{"rbac", "foo", "-n", "demo", "--leader-elect"}},
		{"foo-shards.yaml", []string{"rbac", "foo", "-n", "demo", "--shards"}},
		{"foo-all-namespaces.yaml", []string{"rbac", "foo", "-A", "-n", "ops", "--leader-elect"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			code, stdout, stderr := run(t, map[string]string{"HOME": t.TempDir()}, tc.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			golden(t, filepath.Join("rbac", tc.file), stdout)
			if strings.Contains(stdout, "*") {
				t.Errorf("a rule grants \"*\":\n%s", stdout)
			}
		})
	}
}

// manifests prints everything that runs the controller in a cluster; with
// more than one replica the controller elects a leader.
func TestManifests_print_what_runs_a_controller_in_a_cluster(t *testing.T) {
	for _, tc := range []struct {
		file string
		args []string
	}{
		{"podrestart.yaml", []string{"manifests", "-n", "demo"}},
		{"foo-replicas.yaml", []string{"manifests", "foo", "-n", "demo", "--replicas", "2", "--image", "registry.example/kubewire:dev"}},
		{"foo-shards.yaml", []string{"manifests", "foo", "-n", "demo", "--replicas", "3", "--shards", "--image", "registry.example/kubewire:dev"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			code, stdout, stderr := run(t, map[string]string{"HOME": t.TempDir()}, tc.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			golden(t, filepath.Join("manifests", tc.file), stdout)
		})
	}
}

func TestRBAC_and_manifests_usage_errors_exit_2_with_a_hint(t *testing.T) {
	for _, args := range [][]string{
		{"rbac", "nope"},
		{"rbac", "podrestart", "foo"},
		{"rbac", "podrestart", "--shards"},
		{"rbac", "foo", "--shards", "--leader-elect"},
		{"rbac", "-A"},
		{"rbac", "foo", "--image", "x"},
		{"manifests", "nope"},
		{"manifests", "foo", "--replicas", "0"},
	} {
		code, stdout, stderr := run(t, nil, args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, "kubewire --help") || strings.Count(stderr, "\n") != 2 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2, nothing, one line and the hint", args, code, stdout, stderr)
		}
	}
}
