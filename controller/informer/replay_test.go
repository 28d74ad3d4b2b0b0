package informer_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/realtest"
	"github.com/kubewire/kubewire/apiclient/recording"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/listwatch"
)

// A recording as `kubewire record` makes it from a v1.37 server (the GET
// /version it asks first, then the LIST of the latest state ListCheapest sends
// there, then the watch) replays into an informer with default options: the
// informer asks /version, lists and watches as the recorder did, and the
// replay server finds nothing that does not match. (The replay server answered
// GET /version with a mismatch before: the informer fell back to a streaming
// list, which did not match either.)
func TestInformer_with_default_options_replays_a_recording_of_a_v1_37_server(t *testing.T) {
	rec, err := recording.Parse(strings.NewReader(strings.Join([]string{
		recording.Magic,
		"> GET /version",
		"< 200",
		`{"major":"1","minor":"37","gitVersion":"v1.37.2"}`,
		"< end",
		"> GET /api/v1/namespaces/demo/pods",
		"< 200",
		`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"10"},"items":[{"metadata":{"name":"a","namespace":"demo","resourceVersion":"9"}}]}`,
		"< end",
		"> GET /api/v1/namespaces/demo/pods?allowWatchBookmarks=true&resourceVersion=10&timeoutSeconds=300&watch=true",
		"< 200",
		`{"type":"ADDED","object":{"metadata":{"name":"b","namespace":"demo","resourceVersion":"11"}}}`,
		"< stall",
	}, "\n") + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	srv := apitest.NewServer(nil)
	srv.CreateNamespaces("demo")
	defer srv.Close()
	srv.Replay(rec)
	c, err := srv.Client(apiclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	inf := informer.New(informer.Options{Client: c, Resource: apiclient.Pods, Namespace: "demo", Logger: quietLog})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	watched := make(chan struct{}) // the watch's event reached the handler: every exchange was played
	inf.AddHandler("test", informer.HandlerFuncs{AddFunc: func(obj *apiclient.Object, _ bool) {
		if obj.Metadata.Name == "b" {
			close(watched)
		}
	}}, 0)
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	select {
	case <-watched:
	case <-ctx.Done():
		t.Fatalf("the informer never played the recording to its end: %v", srv.Err())
	}
	if err := srv.Err(); err != nil {
		t.Fatalf("the replay server reports: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// A file `kubewire record` makes from the real server (listwatch.Record, as
// the command calls it) replays into an informer with default options, on
// every release: the replay server answers the /version it holds, the informer
// lists as the recorder did — one LIST from v1.33, a streaming list before —
// and nothing mismatches. (On v1.32 the recording held no /version and a LIST
// at "0": the informer's /version got a 404, its streaming list did not match,
// and only ListPaged replayed it.) Runs against KUBEWIRE_TEST_KUBECONFIG;
// skips without it.
func TestIntegration_a_recording_of_the_real_server_replays_into_a_default_informer(t *testing.T) {
	c, _ := realtest.Client(t, apiclient.Options{QPS: -1})
	cfg, _ := realtest.Config(t)
	ns := realtest.Namespace(t, c, "replay")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cms := c.Resource(apiclient.ConfigMaps).Namespace(ns)
	if _, err := cms.Create(ctx, []byte(`{"metadata":{"name":"before"}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	synced := make(chan struct{})
	var out bytes.Buffer
	recorded := make(chan error, 1)
	go func() {
		// One event: the configmap made below, once the first list is
		// complete (OnSynced), so it is a watch event on every release.
		_, err := listwatch.Record(ctx, cfg, apiclient.ConfigMaps, &out, listwatch.RecordOptions{Namespace: ns, Events: 1,
			OnSynced: func(listwatch.Recorded) { close(synced) }})
		recorded <- err
	}()
	select {
	case <-synced:
	case err := <-recorded:
		t.Fatalf("Record ended before its first list was complete: %v", err)
	}
	if _, err := cms.Create(ctx, []byte(`{"metadata":{"name":"after"}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := <-recorded; err != nil {
		t.Fatal(err)
	}
	rec, err := recording.Parse(&out)
	if err != nil {
		t.Fatal(err)
	}
	v, err := c.ServerVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.Exchanges[0].Method + " " + rec.Exchanges[0].Target; got != "GET /version" {
		t.Fatalf("the recording of v%s.%s opens with %s, want GET /version", v.Major, v.Minor, got)
	}
	// The list ListCheapest sends to this release (listwatch.Record).
	if got, want := strings.Contains(rec.Exchanges[1].Target, "sendInitialEvents=true"), !v.AtLeast(1, 33); got != want {
		t.Fatalf("the recording of v%s.%s lists with %s: streaming list %v, want %v", v.Major, v.Minor, rec.Exchanges[1].Target, got, want)
	}

	srv := apitest.NewServer(nil)
	srv.CreateNamespaces("demo")
	defer srv.Close()
	srv.Replay(rec)
	rc, err := srv.Client(apiclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	inf := informer.New(informer.Options{Client: rc, Resource: apiclient.ConfigMaps, Namespace: ns, Logger: quietLog})
	watched := make(chan struct{}) // the watch's event reached the handler: every exchange was played
	inf.AddHandler("test", informer.HandlerFuncs{AddFunc: func(obj *apiclient.Object, _ bool) {
		if obj.Metadata.Name == "after" {
			close(watched)
		}
	}}, 0)
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	select {
	case <-watched:
	case <-srv.Done(): // a request that did not match
	case <-ctx.Done():
	}
	if err := srv.Err(); err != nil {
		t.Fatalf("the replay server reports: %v", err)
	}
	if !inf.WaitForCacheSync(ctx) || inf.Len() != 2 {
		t.Fatalf("the informer did not sync from the recording (%d objects, want before and after)", inf.Len())
	}
	cancel()
	<-done
}
