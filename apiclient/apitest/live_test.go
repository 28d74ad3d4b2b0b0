package apitest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
)

func TestLive_create_get_patch_update_delete(t *testing.T) {
	s, c, _ := newServer(t)
	ctx := context.Background()
	rc := c.Resource(pods).Namespace("demo")
	created, err := rc.Create(ctx, []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","labels":{"app":"web"}},"spec":{"activeDeadlineSeconds":9007199254740993}}`), apiclient.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if created.Metadata.UID == "" || created.Metadata.ResourceVersion != "2" || created.Metadata.Namespace != "demo" {
		t.Fatalf("created %+v", created.Metadata)
	}
	if _, err := rc.Create(ctx, []byte(`{"metadata":{"name":"web"}}`), apiclient.WriteOptions{}); !apiclient.IsAlreadyExists(err) {
		t.Fatalf("second create: %v, want 409 AlreadyExists", err)
	}
	patched, err := rc.Patch(ctx, "web", apiclient.StrategicMergePatch, []byte(`{"metadata":{"annotations":{"kubectl.kubernetes.io/restartedAt":"now"}}}`), apiclient.WriteOptions{FieldManager: "kubewire"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := patched.Metadata.Annotations["kubectl.kubernetes.io/restartedAt"], "now"; got != want {
		t.Fatalf("annotation %q, want %q", got, want)
	}
	got, err := rc.Get(ctx, "web")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := got.Field("spec", "activeDeadlineSeconds"); fmt.Sprint(n) != "9007199254740993" {
		t.Fatalf("spec.activeDeadlineSeconds = %v: an integer lost precision", n)
	}
	stale := created.Copy()
	if _, err := rc.Update(ctx, stale, apiclient.WriteOptions{}); !apiclient.IsConflict(err) {
		t.Fatalf("update from a stale version: %v, want Conflict", err)
	}
	if _, err := rc.Patch(ctx, "web", apiclient.MergePatch, []byte(`{"status":{"phase":"Running"}}`), apiclient.WriteOptions{}, "status"); err != nil {
		t.Fatal(err)
	}
	if err := rc.Delete(ctx, "web", apiclient.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := rc.Get(ctx, "web"); !apiclient.IsNotFound(err) {
		t.Fatalf("get after delete: %v, want NotFound", err)
	}
	// A Pod's delete is two writes, as on kube-apiserver: the mark
	// (deletionTimestamp), then the deletion.
	if got, want := s.ResourceVersion(), "6"; got != want {
		t.Fatalf("resourceVersion %s, want %s (create, patch, status patch, delete's mark, delete)", got, want)
	}
}

func TestLive_list_pages_and_selects(t *testing.T) {
	s, c, _ := newServer(t)
	for i, app := range []string{"web", "db", "web", "web"} {
		if _, err := s.Add(pods, fmt.Sprintf(`{"metadata":{"name":"p%d","namespace":"demo","labels":{"app":%q}}}`, i, app)); err != nil {
			t.Fatal(err)
		}
	}
	s.Add(pods, `{"metadata":{"name":"other","namespace":"elsewhere","labels":{"app":"web"}}}`)
	rc := c.Resource(pods).Namespace("demo")
	list, err := rc.List(context.Background(), apiclient.ListOptions{LabelSelector: "app=web", Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if list.Continue == "" {
		t.Fatal("the first page of 2 (of 3) has no continue token")
	}
	rest, err := rc.List(context.Background(), apiclient.ListOptions{LabelSelector: "app=web", Limit: 2, Continue: list.Continue})
	if err != nil {
		t.Fatal(err)
	}
	if rest.Continue != "" {
		t.Fatalf("the last page has a continue token %q", rest.Continue)
	}
	var names []string
	for _, o := range append(list.Items, rest.Items...) {
		names = append(names, o.Metadata.Name)
		if o.Kind != "" {
			t.Fatalf("list item carries kind %q; the API server leaves it out", o.Kind)
		}
	}
	if got, want := strings.Join(names, " "), "p0 p2 p3"; got != want {
		t.Fatalf("listed %q, want %q", got, want)
	}
	if got, want := list.Kind, "PodList"; got != want {
		t.Fatalf("kind %q, want %q", got, want)
	}
}

func TestLive_selectors_as_the_API_server_reads_them(t *testing.T) {
	s, c, _ := newServer(t)
	for i, labels := range []string{`{"app":"web","tier":"fe"}`, `{"app":"db"}`, `{"app":"web","tier":"be","legacy":""}`, `{}`} {
		if _, err := s.Add(pods, fmt.Sprintf(`{"metadata":{"name":"p%d","namespace":"demo","labels":%s}}`, i, labels)); err != nil {
			t.Fatal(err)
		}
	}
	rc := c.Resource(pods).Namespace("demo")
	for _, tc := range []struct{ labels, fields, want string }{
		{"app in (web, db)", "", "p0 p1 p2"},
		{"tier notin (be)", "", "p0 p1 p3"},
		{"app,!legacy", "", "p0 p1"},
		{"app=web", "metadata.name!=p0", "p2"},
		{"", "metadata.name==p3,metadata.namespace=demo", "p3"},
		{"app=web", "status.phase=Pending", "p0 p2"}, // a new Pod is Pending
	} {
		list, err := rc.List(context.Background(), apiclient.ListOptions{LabelSelector: tc.labels, FieldSelector: tc.fields})
		if err != nil {
			t.Fatalf("%q %q: %v", tc.labels, tc.fields, err)
		}
		var names []string
		for _, o := range list.Items {
			names = append(names, o.Metadata.Name)
		}
		if got := strings.Join(names, " "); got != tc.want {
			t.Errorf("labels %q fields %q: listed %q, want %q", tc.labels, tc.fields, got, tc.want)
		}
	}
	for _, opts := range []apiclient.ListOptions{
		{LabelSelector: "app in (web"},
		{LabelSelector: "Bad_Prefix/app=web"},
		{FieldSelector: "spec.restartPolicy=Always"}, // a real field, but not one the fake serves
		{FieldSelector: "metadata.name=a=b"},
	} {
		_, err := rc.List(context.Background(), opts)
		if apiclient.CodeOf(err) != 400 {
			t.Errorf("%+v: %v, want 400 BadRequest", opts, err)
		}
		if _, err := rc.Watch(context.Background(), apiclient.WatchOptions{ListOptions: opts}); apiclient.CodeOf(err) != 400 {
			t.Errorf("watch %+v: %v, want 400 BadRequest", opts, err)
		}
	}
}

func TestLive_watch_from_a_version_then_live_changes(t *testing.T) {
	s, c, _ := newServer(t)
	first, _ := s.Add(pods, `{"metadata":{"name":"a","namespace":"demo"}}`)
	s.Add(pods, `{"metadata":{"name":"b","namespace":"demo"}}`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w, err := c.Resource(pods).Namespace("demo").Watch(ctx, apiclient.WatchOptions{ListOptions: apiclient.ListOptions{ResourceVersion: first.Metadata.ResourceVersion}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	s.Add(pods, `{"metadata":{"name":"c","namespace":"demo"}}`)
	var got []string
	for len(got) < 2 {
		ev, err := w.Next()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(ev.Type)+" "+ev.Object.Key())
	}
	if got, want := strings.Join(got, ", "), "ADDED demo/b, ADDED demo/c"; got != want {
		t.Fatalf("events %q, want %q", got, want)
	}
}

func TestLive_streaming_list_ends_with_the_initial_events_bookmark(t *testing.T) {
	s, c, _ := newServer(t)
	s.Add(pods, `{"metadata":{"name":"a","namespace":"demo"}}`)
	w, err := c.Resource(pods).Watch(context.Background(), apiclient.WatchOptions{ListOptions: apiclient.ListOptions{
		SendInitialEvents: true, ResourceVersionMatch: "NotOlderThan", AllowWatchBookmarks: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, want := range []string{"ADDED demo/a", "BOOKMARK true"} {
		ev, err := w.Next()
		if err != nil {
			t.Fatal(err)
		}
		got := string(ev.Type) + " " + ev.Object.Key()
		if ev.Type == apiclient.Bookmark {
			got = "BOOKMARK " + ev.Object.Metadata.Annotations["k8s.io/initial-events-end"]
		}
		if got != want {
			t.Fatalf("event %q, want %q", got, want)
		}
	}
}

func TestLive_watch_from_before_a_compaction_gets_410(t *testing.T) {
	s, c, _ := newServer(t)
	old, _ := s.Add(pods, `{"metadata":{"name":"a","namespace":"demo"}}`)
	s.Add(pods, `{"metadata":{"name":"b","namespace":"demo"}}`)
	s.Compact()
	w, err := c.Resource(pods).Watch(context.Background(), apiclient.WatchOptions{ListOptions: apiclient.ListOptions{ResourceVersion: old.Metadata.ResourceVersion}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Next(); !apiclient.IsGone(err) {
		t.Fatalf("Next() = %v, want 410", err)
	}
}

func TestLive_watch_ends_after_timeoutSeconds_on_the_servers_clock(t *testing.T) {
	s, c, clock := newServer(t)
	_ = s
	w, err := c.Resource(pods).Watch(context.Background(), apiclient.WatchOptions{ListOptions: apiclient.ListOptions{ResourceVersion: "1", TimeoutSeconds: 30}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	clock.BlockUntilDue(30 * time.Second)
	clock.Step(30 * time.Second)
	if _, err := w.Next(); err == nil || err.Error() != "EOF" {
		t.Fatalf("Next() = %v, want EOF", err)
	}
}

var _ = apitest.Reply{}
