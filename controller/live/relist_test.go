package live_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/controller/live"
	"github.com/kubewire/kubewire/controller/live/livetest"
	"github.com/kubewire/kubewire/controller/pipeline"
)

// snapshots reads the page's event stream until a snapshot satisfies done, and
// returns that one.
func snapshots(t *testing.T, url string, done func(live.Snapshot) bool) live.Snapshot {
	t.Helper()
	var s live.Snapshot
	err := livetest.Events(url, func(event, data string) bool {
		if event != "snapshot" {
			return true
		}
		s = live.Snapshot{}
		if err := json.Unmarshal([]byte(data), &s); err != nil {
			t.Fatal(err)
		}
		return !done(s)
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A relist, as the page is told it: the watch ends, its resumption is refused
// 410 Gone (as when etcd compacted the version away), and the Reflector lists
// again.
// The page counts one relist and every object received (a, listed; b, a watch
// event; both, listed again), and the store holds both at the relist's version.
func TestPage_counts_a_relist_after_410_Gone(t *testing.T) {
	clock := clock.NewFake()
	srv := apitest.NewServer(clock)
	srv.CreateNamespaces("demo")
	defer srv.Close()
	srv.Add(apiclient.Pods, `{"metadata":{"name":"a","namespace":"demo"}}`)
	base, err := srv.Config().Transport()
	if err != nil {
		t.Fatal(err)
	}
	c, err := srv.Client(apiclient.Options{Transport: &goneOnResume{base: base}})
	if err != nil {
		t.Fatal(err)
	}
	var m *controller.Manager
	hub, page := newHub(t, live.Options{Command: "test", Pipeline: func() pipeline.Snapshot { return m.Pipeline() }})
	m, err = controller.NewManager(c, controller.ManagerOptions{Namespace: "demo", Trace: hub.Trace, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	inf := m.Informer(apiclient.Pods)
	gotB := make(chan struct{})
	inf.AddHandler("test", informer.HandlerFuncs{AddFunc: func(o *apiclient.Object, _ bool) {
		if o.Metadata.Name == "b" {
			close(gotB)
		}
	}}, 0)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	defer func() { cancel(); <-done }()
	if !inf.WaitForCacheSync(ctx) {
		t.Fatal("never synced")
	}

	srv.Add(apiclient.Pods, `{"metadata":{"name":"b","namespace":"demo"}}`)
	<-gotB
	// The watch ends when its timeoutSeconds (at most 10 minutes) pass on the
	// server's clock (the pipeline's is the real one: none of its timers fires
	// meanwhile); the Reflector watches again from b's resourceVersion, and is
	// told 410 Gone.
	clock.Step(10 * time.Minute)

	s := snapshots(t, page.URL, func(s live.Snapshot) bool {
		return len(s.Informers) == 1 && s.Informers[0].Reflector.Relists > 0 && s.Informers[0].Reflector.State == "watching" &&
			s.Informers[0].Store.ResourceVersion == s.Informers[0].Reflector.ResourceVersion
	})
	r, st := s.Informers[0].Reflector, s.Informers[0].Store
	if r.Relists != 1 || r.Received != 4 {
		t.Errorf("reflector: %+v; want 1 relist, 4 objects received (a; b; a and b again)", r)
	}
	if st.Objects != 2 || st.ResourceVersion != srv.ResourceVersion() {
		t.Errorf("store: %+v; want a and b at the server's resourceVersion %s", st, srv.ResourceVersion())
	}
}

// goneOnResume answers the second watch request, the first one's resumption,
// 410 Gone, as the API server does when the resourceVersion asked for was
// compacted away; everything else goes to base.
type goneOnResume struct {
	base    http.RoundTripper
	watches atomic.Int32
}

func (g *goneOnResume) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Query().Get("watch") != "true" || g.watches.Add(1) != 2 {
		return g.base.RoundTrip(req)
	}
	body := `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old resource version: 3 (4)","reason":"Expired","code":410}`
	return &http.Response{StatusCode: http.StatusGone, Status: "410 Gone", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(body)),
		ContentLength: int64(len(body)), Request: req}, nil
}
