package apitest_test

import (
	"context"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
)

// ExpireWatches is the one call that makes a client meet 410 Expired on its
// watch: the open watches of the resource end with a 410 ERROR event at once
// (no clock to move, no wait), a watch from before the call gets one as it
// starts, and other resources' watches go on.
func TestExpireWatches_ends_open_watches_with_410_and_refuses_older_versions(t *testing.T) {
	s, c, _ := newServer(t)
	ctx := context.Background()
	rc := c.Resource(pods).Namespace("demo")
	if _, err := rc.Create(ctx, []byte(`{"metadata":{"name":"web-1"}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	from := s.ResourceVersion()
	w, err := rc.Watch(ctx, apiclient.WatchOptions{ListOptions: apiclient.ListOptions{ResourceVersion: from, TimeoutSeconds: 60}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	cms, err := c.Resource(apiclient.ConfigMaps).Namespace("demo").Watch(ctx, apiclient.WatchOptions{ListOptions: apiclient.ListOptions{ResourceVersion: from}})
	if err != nil {
		t.Fatal(err)
	}
	defer cms.Close()
	if _, err := rc.Create(ctx, []byte(`{"metadata":{"name":"web-x"}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if ev := next(t, w); ev != "ADDED web-x" {
		t.Fatalf("pods watch: %s", ev)
	}

	s.ExpireWatches(apiclient.Pods)
	gone := make(chan error, 1)
	go func() { _, err := w.Next(); gone <- err }()
	within(t, func() {
		if err := <-gone; !apiclient.IsGone(err) {
			t.Errorf("the open pods watch ended with %v, want 410 Expired", err)
		}
	})

	again, err := rc.Watch(ctx, apiclient.WatchOptions{ListOptions: apiclient.ListOptions{ResourceVersion: from}})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	within(t, func() {
		if _, err := again.Next(); !apiclient.IsGone(err) {
			t.Errorf("a watch from rv %s after ExpireWatches: %v, want 410 Expired", from, err)
		}
	})

	// The configmaps watch is still open: it sees the next configmap.
	if _, err := c.Resource(apiclient.ConfigMaps).Namespace("demo").Create(ctx, []byte(`{"metadata":{"name":"cm"}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if ev := next(t, cms); ev != "ADDED cm" {
		t.Fatalf("configmaps watch after the pods' expired: %s", ev)
	}
	// The call found a watch open, which took the 410: the next is served.
	now, err := rc.Watch(ctx, apiclient.WatchOptions{ListOptions: apiclient.ListOptions{ResourceVersion: s.ResourceVersion()}})
	if err != nil {
		t.Fatal(err)
	}
	defer now.Close()
	if _, err := rc.Create(ctx, []byte(`{"metadata":{"name":"web-2"}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if ev := next(t, now); ev != "ADDED web-2" {
		t.Fatalf("a watch from the current version after ExpireWatches: %s", ev)
	}
}

// With no watch of the resource open, ExpireWatches does not race the client:
// the next watch to start gets the 410, whatever its resourceVersion, and the
// one after it is served.
func TestExpireWatches_with_none_open_expires_the_next(t *testing.T) {
	s, c, _ := newServer(t)
	ctx := context.Background()
	rc := c.Resource(pods).Namespace("demo")
	s.ExpireWatches(apiclient.Pods)
	w, err := rc.Watch(ctx, apiclient.WatchOptions{ListOptions: apiclient.ListOptions{ResourceVersion: s.ResourceVersion()}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	within(t, func() {
		if _, err := w.Next(); !apiclient.IsGone(err) {
			t.Errorf("the next watch after ExpireWatches: %v, want 410 Expired", err)
		}
	})
	again, err := rc.Watch(ctx, apiclient.WatchOptions{ListOptions: apiclient.ListOptions{ResourceVersion: s.ResourceVersion()}})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if _, err := rc.Create(ctx, []byte(`{"metadata":{"name":"web-1"}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if ev := next(t, again); ev != "ADDED web-1" {
		t.Fatalf("the watch after the expired one: %s", ev)
	}
}
