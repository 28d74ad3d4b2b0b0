package cli_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/cli"
)

// fullDisk is standard output on a full disk (/dev/full): every write fails.
type fullDisk struct{}

func (fullDisk) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// Results that cannot be written are a failure: exit 1 with the reason, never 0
// (issue 16, rule 4: `sync --dump >/dev/full` and `get -o name` exited 0).
func TestResults_that_cannot_be_written_exit_1(t *testing.T) {
	path, c := recordServer(t)
	if _, err := c.Resource(apiclient.ConfigMaps).Namespace("default").Create(context.Background(), []byte(`{"metadata":{"name":"one"}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"get", "configmaps", "-o", "name"},
		{"get", "configmaps", "-o", "json"},
		{"sync", "configmaps", "--dump"},
	} {
		var stderr bytes.Buffer
		code := cli.Main(context.Background(), append(args, "--kubeconfig", path), cli.Env{Stdout: fullDisk{}, Stderr: &stderr, Getenv: func(string) string { return "" }})
		if code != 1 || !strings.Contains(stderr.String(), "no space left on device") {
			t.Errorf("%q: exit %d, stderr %q; want exit 1 saying the write failed", args, code, stderr.String())
		}
	}
}

// watch runs until interrupted, but not when nothing it prints can be written: the
// first failed line ends it, exit 1, and it claims no events (it said "watched 31
// events" and went on watching until Ctrl-C).
func TestWatch_ends_at_the_first_line_it_cannot_write(t *testing.T) {
	path, c := recordServer(t)
	if _, err := c.Resource(apiclient.ConfigMaps).Namespace("default").Create(context.Background(), []byte(`{"metadata":{"name":"one"}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	watchdog, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stderr bytes.Buffer
	code := cli.Main(watchdog, []string{"watch", "configmaps", "--kubeconfig", path}, cli.Env{Stdout: fullDisk{}, Stderr: &stderr, Getenv: func(string) string { return "" }})
	if watchdog.Err() != nil {
		t.Fatalf("watch went on for a minute writing nothing: exit %d, stderr %q", code, stderr.String())
	}
	if got, want := stderr.String(), "error: write standard output: no space left on device\n"; code != 1 || got != want {
		t.Fatalf("exit %d, stderr %q; want exit 1 and %q", code, got, want)
	}
}
