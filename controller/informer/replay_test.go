package informer_test

import (
	"bytes"
	"context"
	"net/http"
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
// the command calls it) replays into an informer with default options (v1.33
// and later; with ListPaged before, listwatch.Record says why): the replay
// server answers the /version it holds, the informer lists as the recorder
// did, and nothing mismatches. Runs against KUBEWIRE_TEST_KUBECONFIG; skips
// without it.
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
	base, err := cfg.Transport()
	if err != nil {
		t.Fatal(err)
	}
	watching := make(chan struct{}, 1)
	spy := roundTripFunc(func(req *http.Request) (*http.Response, error) {
		if req.URL.Query().Get("watch") == "true" {
			select {
			case watching <- struct{}{}:
			default:
			}
		}
		return base.RoundTrip(req)
	})
	var out bytes.Buffer
	recorded := make(chan error, 1)
	go func() {
		// One event: on v1.32 the streaming list's initial-events-end bookmark;
		// on v1.37 the configmap made below, after the LIST (the watch starts
		// at the list's version, so it cannot miss it).
		_, err := listwatch.Record(ctx, cfg, apiclient.ConfigMaps, &out, listwatch.RecordOptions{Namespace: ns, Events: 1, Transport: spy})
		recorded <- err
	}()
	select {
	case <-watching:
	case err := <-recorded:
		t.Fatalf("Record ended before it watched: %v", err)
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
	// From 1.33 Record lists as a default informer does there; before, with
	// LIST at "0", as an informer with ListPaged does (listwatch.Record).
	v, err := c.ServerVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	opts := informer.Options{Resource: apiclient.ConfigMaps, Namespace: ns, Logger: quietLog}
	last := len(rec.Exchanges) - 1 // the script's last exchange
	if v.AtLeast(1, 33) {
		if got := rec.Exchanges[0].Method + " " + rec.Exchanges[0].Target; got != "GET /version" {
			t.Fatalf("the recording of %s opens with %s, want GET /version", v.GitVersion, got)
		}
		last-- // the /version exchange is answered aside
	} else {
		opts.List = listwatch.ListPaged
	}

	srv := apitest.NewServer(nil)
	srv.CreateNamespaces("demo")
	defer srv.Close()
	played := make(chan struct{})
	srv.OnReply = func(r apitest.Reply) {
		if r.Index == last {
			close(played)
		}
	}
	srv.Replay(rec)
	rc, err := srv.Client(apiclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	opts.Client = rc
	inf := informer.New(opts)
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	select {
	case <-played:
	case <-srv.Done(): // a request that did not match
	case <-ctx.Done():
	}
	if err := srv.Err(); err != nil {
		t.Fatalf("the replay server reports: %v", err)
	}
	if !inf.WaitForCacheSync(ctx) || inf.Len() < 1 {
		t.Fatalf("the informer did not sync from the recording (%d objects)", inf.Len())
	}
	cancel()
	<-done
}

// roundTripFunc makes a function an http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
