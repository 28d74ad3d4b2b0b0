package apitest_test

import (
	"context"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
)

// While a resource is held, its writes are answered and read back at once, but
// its watches send nothing of them (a watch held to its timeout ends empty);
// on release, an open watch gets every held change, in order, and the changes
// after it.
func TestHoldWatch_holds_the_changes_until_released(t *testing.T) {
	s, c, clock := newServer(t)
	ctx := context.Background()
	rc := c.Resource(pods).Namespace("demo")
	create := func(name string) {
		t.Helper()
		if _, err := rc.Create(ctx, []byte(`{"metadata":{"name":"`+name+`"}}`), apiclient.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	from := s.ResourceVersion()
	release := s.HoldWatch(apiclient.Pods)
	// Another resource is not held.
	if _, err := c.Resource(apiclient.ConfigMaps).Namespace("demo").Create(ctx, []byte(`{"metadata":{"name":"cm"}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	cms, err := c.Resource(apiclient.ConfigMaps).Namespace("demo").Watch(ctx, apiclient.WatchOptions{ListOptions: apiclient.ListOptions{ResourceVersion: from}})
	if err != nil {
		t.Fatal(err)
	}
	defer cms.Close()
	if ev := next(t, cms); ev != "ADDED cm" {
		t.Fatalf("configmaps watch: %s", ev)
	}

	w, err := rc.Watch(ctx, apiclient.WatchOptions{ListOptions: apiclient.ListOptions{ResourceVersion: from, TimeoutSeconds: 60}})
	if err != nil {
		t.Fatal(err)
	}
	create("web-1")
	if _, err := rc.Get(ctx, "web-1"); err != nil {
		t.Fatalf("a held write is not read back: %v", err)
	}
	within(t, func() { clock.BlockUntilDue(60 * time.Second) })
	clock.Step(60 * time.Second)
	if ev := next(t, w); ev != "end" {
		t.Fatalf("held watch sent %s", ev)
	}
	w.Close()

	w, err = rc.Watch(ctx, apiclient.WatchOptions{ListOptions: apiclient.ListOptions{ResourceVersion: from}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	create("web-2")
	release()
	release() // twice is once
	create("web-3")
	for _, want := range []string{"ADDED web-1", "ADDED web-2", "ADDED web-3"} {
		if ev := next(t, w); ev != want {
			t.Fatalf("after release: %s, want %s", ev, want)
		}
	}
}

// next reads one event, as "TYPE name", or "end" when the stream ends; it
// fails the test after 10 s.
func next(t *testing.T, w *apiclient.Watcher) string {
	t.Helper()
	got := make(chan string, 1)
	go func() {
		ev, err := w.Next()
		if err != nil {
			got <- "end"
			return
		}
		got <- string(ev.Type) + " " + ev.Object.Metadata.Name
	}()
	select {
	case s := <-got:
		return s
	case <-time.After(10 * time.Second):
		t.Fatal("no watch event in 10 s")
		return ""
	}
}

// within runs f, failing the test if it has not returned in 10 s.
func within(t *testing.T, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { f(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("still waiting after 10 s")
	}
}
