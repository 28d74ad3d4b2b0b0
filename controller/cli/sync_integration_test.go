package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/cli"
)

// signalWriter collects what is written and closes seen once want has appeared.
type signalWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	// line, when set, is what one line must hold, every part of it, instead
	// of want (the watch of one resource among several, say).
	line []string
	seen chan struct{}
	once sync.Once
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if w.matches() {
		w.once.Do(func() { close(w.seen) })
	}
	return len(p), nil
}

func (w *signalWriter) matches() bool {
	if w.line == nil {
		return strings.Contains(w.buf.String(), w.want)
	}
lines:
	for _, l := range strings.Split(w.buf.String(), "\n") {
		for _, part := range w.line {
			if !strings.Contains(l, part) {
				continue lines
			}
		}
		return true
	}
	return false
}

func (w *signalWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// sync against the real server: --dump prints what the server holds, and
// --until-events ends after exactly the events made after the sync.
func TestIntegration_sync_dump_and_until_events(t *testing.T) {
	c, path, ns := realCluster(t, "kubewire-sync")
	ctx := context.Background()
	cms := c.Resource(apiclient.ConfigMaps).Namespace(ns)
	for i := 0; i < 7; i++ {
		if _, err := cms.Create(ctx, []byte(fmt.Sprintf(`{"metadata":{"name":"cm-%d"}}`, i)), apiclient.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"KUBECONFIG": path}

	for _, extra := range [][]string{nil, {"--watch-list"}, {"--metadata-only"}, {"--metadata-only", "--watch-list"}} {
		code, stdout, stderr := run(t, env, append([]string{"sync", "configmaps", "-n", ns, "--dump"}, extra...)...)
		list, err := cms.List(ctx, apiclient.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, o := range list.Items {
			want = append(want, o.Key()+" "+o.Metadata.ResourceVersion)
		}
		sort.Strings(want)
		if code != 0 || stdout != strings.Join(want, "\n")+"\n" {
			t.Fatalf("sync %v: exit %d\n%s\nwant\n%s", extra, code, stdout, strings.Join(want, "\n"))
		}
		if !strings.HasPrefix(stderr, fmt.Sprintf("synced %d objects in ", len(want))) || !strings.Contains(stderr, "; heap after GC ") {
			t.Fatalf("sync %v stderr %q", extra, stderr)
		}
	}

	// --until-events 3: three writes once the list is in. (Not once the watch
	// has started: a streaming list is a watch, and a write made while it lists
	// is part of the list, not an event after it.)
	stderr := &signalWriter{want: "listwatch LISTED", seen: make(chan struct{})}
	var stdout bytes.Buffer
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	done := make(chan int, 1)
	go func() {
		done <- cli.Main(ctx, []string{"sync", "cm", "-n", ns, "--until-events", "3", "--trace", "--dump"},
			cli.Env{Stdout: &stdout, Stderr: stderr, Getenv: func(k string) string { return env[k] }})
	}()
	<-stderr.seen
	if _, err := cms.Patch(ctx, "cm-1", apiclient.MergePatch, []byte(`{"data":{"a":"b"}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cms.Delete(ctx, "cm-2", apiclient.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cms.Create(ctx, []byte(`{"metadata":{"name":"cm-new"}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if code := <-done; code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr.String(), "3 events after sync in ") || !strings.Contains(stdout.String(), ns+"/cm-new ") || strings.Contains(stdout.String(), ns+"/cm-2 ") {
		t.Fatalf("stderr:\n%s\nstdout:\n%s", stderr, stdout.String())
	}
}
