package controller_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/recording"
	"github.com/kubewire/kubewire/controller"
)

// A recording as `kubewire record` makes it from a v1.37 server — its GET
// /version, the LIST of the latest state, the watch — replays into a Manager
// with default options: its informer asks /version, lists and watches as the
// recorder did, and the replay server reports no mismatch (issue 36: the
// recording held no /version, and only ListPaged replayed it).
func TestManager_with_default_options_replays_a_record_file(t *testing.T) {
	rec, err := recording.Parse(strings.NewReader(strings.Join([]string{
		recording.Magic,
		"> GET /version", "< 200", `{"major":"1","minor":"37","gitVersion":"v1.37.2"}`, "< end",
		"> GET /api/v1/namespaces/demo/pods", "< 200",
		`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"10"},"items":[{"metadata":{"name":"a","namespace":"demo","resourceVersion":"9"}}]}`, "< end",
		"> GET /api/v1/namespaces/demo/pods?allowWatchBookmarks=true&resourceVersion=10&timeoutSeconds=300&watch=true", "< 200",
		`{"type":"ADDED","object":{"metadata":{"name":"b","namespace":"demo","resourceVersion":"11"}}}`, "< stall",
	}, "\n") + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	srv := apitest.NewServer(nil)
	srv.CreateNamespaces("demo")
	defer srv.Close()
	played := make(chan struct{})
	srv.OnReply = func(r apitest.Reply) {
		if r.Index == 1 { // the watch (the script's second: /version is answered aside)
			close(played)
		}
	}
	srv.Replay(rec)
	c, err := srv.Client(apiclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := controller.NewManager(c, controller.ManagerOptions{Namespace: "demo", Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	inf := m.Informer(apiclient.Pods)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	select {
	case <-played:
	case <-srv.Done(): // a request the script does not hold
	case <-ctx.Done():
		t.Fatal("the recording was not played to its end")
	}
	if err := srv.Err(); err != nil {
		t.Fatalf("the replay server reports: %v", err)
	}
	if !inf.WaitForCacheSync(ctx) {
		t.Fatalf("the Manager's informer did not sync from the recording: %d objects, %+v", inf.Len(), m.Pipeline().Informers)
	}
	cancel()
	<-done
}
