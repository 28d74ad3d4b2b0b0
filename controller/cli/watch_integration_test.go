package cli_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/cli"
)

// watch against the real server: a configmap created, patched and deleted after
// the watch has started prints as ADDED, MODIFIED and DELETED lines carrying the
// resourceVersions the server gave those writes, and cancelling ends the command
// cleanly with the count of what it printed.
func TestIntegration_watch_prints_events(t *testing.T) {
	c, path, ns := realCluster(t, "kubewire-watch")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cms := c.Resource(apiclient.ConfigMaps).Namespace(ns)

	// The test's own watch, from before any write: it learns the resourceVersion
	// of the delete, which the DELETE call does not return.
	before, err := cms.List(ctx, apiclient.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	own, err := cms.Watch(ctx, apiclient.WatchOptions{ListOptions: apiclient.ListOptions{ResourceVersion: before.ResourceVersion}})
	if err != nil {
		t.Fatal(err)
	}
	defer own.Close()

	// The command starts in a goroutine; "listwatch WATCH" on stderr (--trace)
	// says its list is done and its watch is open, so what we write from then on
	// must reach it as watch events.
	stderr := &signalWriter{want: "listwatch WATCH", seen: make(chan struct{})}
	key := ns + "/x"
	stdout := &signalWriter{want: "DELETED " + key + " ", seen: make(chan struct{})}
	env := map[string]string{"KUBECONFIG": path}
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	done := make(chan int, 1)
	go func() {
		done <- cli.Main(runCtx, []string{"watch", "configmaps", "-n", ns, "--trace"},
			cli.Env{Stdout: stdout, Stderr: stderr, Getenv: func(k string) string { return env[k] }})
	}()
	waitFor(ctx, t, stderr.seen, "the watch to start", stderr)

	created, err := cms.Create(ctx, []byte(`{"metadata":{"name":"x"},"data":{"a":"1"}}`), apiclient.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	patched, err := cms.Patch(ctx, "x", apiclient.MergePatch, []byte(`{"data":{"a":"2"}}`), apiclient.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := cms.Delete(ctx, "x", apiclient.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	var deletedRV string
	for deletedRV == "" {
		ev, err := own.Next()
		if err != nil {
			t.Fatalf("the test's own watch: %v", err)
		}
		if ev.Type == apiclient.Deleted && ev.Object.Key() == key {
			deletedRV = ev.Object.Metadata.ResourceVersion
		}
	}

	waitFor(ctx, t, stdout.seen, "the DELETED line", stdout)
	stop()
	var code int
	select {
	case code = <-done:
	case <-ctx.Done():
		t.Fatalf("watch did not return after cancel; stderr:\n%s", stderr)
	}
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}

	// Only the lines about x are ours to predict: a cluster with a controller
	// manager also puts kube-root-ca.crt into every new namespace.
	lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	var got []string
	for _, l := range lines {
		if strings.Contains(l, " "+key+" ") {
			got = append(got, l)
		}
	}
	want := []string{
		"ADDED " + key + " " + created.Metadata.ResourceVersion,
		"MODIFIED " + key + " " + patched.Metadata.ResourceVersion,
		"DELETED " + key + " " + deletedRV,
	}
	if got, want := strings.Join(got, "\n"), strings.Join(want, "\n"); got != want {
		t.Fatalf("stdout about %s:\n%s\nwant\n%s\nall of stdout:\n%s", key, got, want, stdout)
	}
	if summary := fmt.Sprintf("watched %d events\n", len(lines)); !strings.Contains(stderr.String(), summary) {
		t.Fatalf("stderr has no %q:\n%s", summary, stderr)
	}
}

// waitFor waits for seen, or fails the test when ctx ends first.
func waitFor(ctx context.Context, t *testing.T, seen <-chan struct{}, what string, w fmt.Stringer) {
	t.Helper()
	select {
	case <-seen:
	case <-ctx.Done():
		t.Fatalf("gave up waiting for %s; so far:\n%s", what, w)
	}
}
