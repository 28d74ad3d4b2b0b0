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

// A recording as `kubewire record` makes it replays into a Manager with
// default options, the replay server reporting no mismatch: its informer asks
// /version and lists as the recorder did — from a v1.37 server, its GET
// /version, the LIST of the latest state and the watch; from a v1.32 server,
// its GET /version and the streaming list that goes on as the watch (issue
// 36: the recording held no /version, and only ListPaged replayed it).
func TestManager_with_default_options_replays_a_record_file(t *testing.T) {
	const (
		a = `{"metadata":{"name":"a","namespace":"demo","resourceVersion":"9"}}`
		b = `{"type":"ADDED","object":{"metadata":{"name":"b","namespace":"demo","resourceVersion":"11"}}}`
	)
	for _, tc := range []struct {
		name   string
		script []string
	}{
		{"v1.37", []string{
			"> GET /version", "< 200", `{"major":"1","minor":"37","gitVersion":"v1.37.2"}`, "< end",
			"> GET /api/v1/namespaces/demo/pods", "< 200",
			`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"10"},"items":[` + a + `]}`, "< end",
			"> GET /api/v1/namespaces/demo/pods?allowWatchBookmarks=true&resourceVersion=10&timeoutSeconds=300&watch=true", "< 200",
			b, "< stall",
		}},
		{"v1.32", []string{
			"> GET /version", "< 200", `{"major":"1","minor":"32","gitVersion":"v1.32.4"}`, "< end",
			"> GET /api/v1/namespaces/demo/pods?allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&timeoutSeconds=300&watch=true", "< 200",
			`{"type":"ADDED","object":` + a + `}`,
			`{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"10","annotations":{"k8s.io/initial-events-end":"true"}}}}`,
			b, "< stall",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec, err := recording.Parse(strings.NewReader(recording.Magic + "\n" + strings.Join(tc.script, "\n") + "\n"))
			if err != nil {
				t.Fatal(err)
			}
			replaysIntoADefaultManager(t, rec)
		})
	}
}

// replaysIntoADefaultManager runs a Manager with default options and one
// informer of demo's pods on rec until the script's last exchange was played,
// and fails if the replay server found a request amiss or the informer did not
// sync.
func replaysIntoADefaultManager(t *testing.T, rec *recording.Recording) {
	t.Helper()
	srv := apitest.NewServer(nil)
	srv.CreateNamespaces("demo")
	defer srv.Close()
	last := len(rec.Exchanges) - 2 // the script's last: /version is answered aside
	played := make(chan struct{})
	srv.OnReply = func(r apitest.Reply) {
		if r.Index == last {
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
