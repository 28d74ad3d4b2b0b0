package events_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/controller/events"
)

var (
	quiet = slog.New(slog.NewTextHandler(io.Discard, nil))
	foos  = apiclient.Resource{Group: "samplecontroller.k8s.io", Version: "v1alpha1", Name: "foos", Kind: "Foo", Namespaced: true}
	foo   = &testFoo{ObjectMeta: apiclient.ObjectMeta{Name: "example-foo", Namespace: "demo", UID: "uid-1"}}
)

// testFoo is a Foo of the tests' own: a TypedObject, as events are about.
type testFoo struct {
	apiclient.ObjectMeta `json:"metadata"`
}

func (*testFoo) Resource() apiclient.Resource { return foos }

// recorder runs a Recorder on srv until stop is called; stop waits for Run to
// return, so what it wrote is on the server.
func recorder(t *testing.T, c *apiclient.Client, opts events.Options) (r *events.Recorder, stop func()) {
	t.Helper()
	opts.Controller, opts.Instance, opts.Log = "kubewire.io/test", "replica-1", quiet
	if opts.Clock == nil {
		opts.Clock = clock.NewFake()
	}
	r = events.NewRecorder(c, opts)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	stop = func() {
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	return r, stop
}

func list(t *testing.T, c *apiclient.Client, res apiclient.Resource) []*apiclient.Object {
	t.Helper()
	l, err := c.Resource(res).Namespace("demo").List(context.Background(), apiclient.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return l.Items
}

var eventsV1 = apiclient.Resource{Group: "events.k8s.io", Version: "v1", Name: "events", Kind: "Event", Namespaced: true}
var coreV1 = apiclient.Resource{Version: "v1", Name: "events", Kind: "Event", Namespaced: true}

// One event is one events.k8s.io Event with every field the API requires.
func TestRecorder_writes_an_events_k8s_io_Event(t *testing.T) {
	srv := apitest.NewServer(clock.NewFake())
	srv.CreateNamespaces("demo")
	defer srv.Close()
	c, _ := srv.Client(apiclient.Options{})
	r, stop := recorder(t, c, events.Options{})
	r.Eventf(foo, events.Normal, "Synced", "Reconcile", "Foo %s synced successfully", "example-foo")
	stop()
	items := list(t, c, eventsV1)
	if len(items) != 1 {
		t.Fatalf("%d events, want 1", len(items))
	}
	e := items[0]
	for path, want := range map[string]string{
		"type": "Normal", "reason": "Synced", "action": "Reconcile", "note": "Foo example-foo synced successfully",
		"reportingController": "kubewire.io/test", "reportingInstance": "replica-1",
		"regarding.kind": "Foo", "regarding.name": "example-foo", "regarding.uid": "uid-1",
		"regarding.apiVersion": "samplecontroller.k8s.io/v1alpha1",
	} {
		if got, _ := e.FieldString(strings.Split(path, ".")...); got != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
	if !strings.HasPrefix(e.Metadata.Name, "example-foo.") || e.Metadata.Namespace != "demo" {
		t.Errorf("event %s/%s, want demo/example-foo.<suffix>", e.Metadata.Namespace, e.Metadata.Name)
	}
	if at, _ := e.FieldString("eventTime"); len(at) != len("2026-11-24T03:00:00.000000Z") {
		t.Errorf("eventTime %q is not a MicroTime", at)
	}
}

// Ten of the same event are one Event whose series counts ten; a different note
// is another Event.
func TestRecorder_repeats_are_one_Event_with_a_series(t *testing.T) {
	srv := apitest.NewServer(clock.NewFake())
	srv.CreateNamespaces("demo")
	defer srv.Close()
	c, _ := srv.Client(apiclient.Options{})
	r, stop := recorder(t, c, events.Options{})
	for range 10 {
		r.Eventf(foo, events.Warning, "ErrResourceExists", "Reconcile", "Resource %q already exists and is not managed by Foo", "web")
	}
	r.Eventf(foo, events.Normal, "Synced", "Reconcile", "Foo synced successfully")
	stop()
	items := list(t, c, eventsV1)
	if len(items) != 2 {
		t.Fatalf("%d events, want 2 (one series, one other)", len(items))
	}
	counts := map[string]string{}
	for _, e := range items {
		reason, _ := e.FieldString("reason")
		n, _ := e.Field("series", "count")
		counts[reason] = fmt.Sprint(n)
	}
	if counts["ErrResourceExists"] != "10" || counts["Synced"] != "<nil>" {
		t.Fatalf("series counts %v, want ErrResourceExists 10 and no series for Synced", counts)
	}
	if s := r.Stats(); s.JoinedSeries != 9 || s.Dropped != 0 {
		t.Fatalf("stats %+v", s)
	}
}

// Eventf never blocks: with nothing writing and the buffer full, events are
// dropped and counted.
func TestRecorder_Eventf_never_blocks(t *testing.T) {
	srv := apitest.NewServer(clock.NewFake())
	srv.CreateNamespaces("demo")
	defer srv.Close()
	c, _ := srv.Client(apiclient.Options{})
	r := events.NewRecorder(c, events.Options{Controller: "kubewire.io/test", BufferSize: 2, Log: quiet})
	for i := range 5 { // no Run: nothing takes from the buffer
		r.Eventf(foo, events.Normal, "Tick", "Reconcile", "tick %d", i)
	}
	if got := r.Stats().Dropped; got != 3 {
		t.Fatalf("dropped %d, want 3", got)
	}
}

// One object over its rate limit loses the excess, not the recorder.
func TestRecorder_rate_limits_per_object(t *testing.T) {
	srv := apitest.NewServer(clock.NewFake())
	srv.CreateNamespaces("demo")
	defer srv.Close()
	c, _ := srv.Client(apiclient.Options{})
	r, stop := recorder(t, c, events.Options{Burst: 3})
	other := &testFoo{ObjectMeta: apiclient.ObjectMeta{Name: "other", Namespace: "demo", UID: "uid-2"}}
	for i := range 5 {
		r.Eventf(foo, events.Normal, "Tick", "Reconcile", "tick %d", i)
	}
	r.Eventf(other, events.Normal, "Tick", "Reconcile", "tick")
	stop()
	if got := len(list(t, c, eventsV1)); got != 4 {
		t.Fatalf("%d events, want 4: 3 of foo's 5, and other's", got)
	}
	if got := r.Stats().RateLimited; got != 2 {
		t.Fatalf("rate limited %d, want 2", got)
	}
}

// notServing answers 404 for the events.k8s.io group, as a server before 1.19.
type notServing struct{ base http.RoundTripper }

func (n notServing) RoundTrip(req *http.Request) (*http.Response, error) {
	if strings.HasPrefix(req.URL.Path, "/apis/events.k8s.io/") {
		body := `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","code":404}`
		return &http.Response{StatusCode: 404, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(body)), Request: req}, nil
	}
	return n.base.RoundTrip(req)
}

// Where events.k8s.io is not served, core/v1 Events carry the same, and a repeat
// raises count.
func TestRecorder_falls_back_to_core_v1_Events(t *testing.T) {
	srv := apitest.NewServer(clock.NewFake())
	srv.CreateNamespaces("demo")
	defer srv.Close()
	base, err := srv.Config().Transport()
	if err != nil {
		t.Fatal(err)
	}
	c, _ := srv.Client(apiclient.Options{Transport: notServing{base}})
	r, stop := recorder(t, c, events.Options{})
	for range 3 {
		r.Eventf(foo, events.Warning, "ErrResourceExists", "Reconcile", "not managed by Foo")
	}
	stop()
	items := list(t, c, coreV1)
	if len(items) != 1 {
		t.Fatalf("%d core/v1 events, want 1", len(items))
	}
	e := items[0]
	count, _ := e.Field("count")
	name, _ := e.FieldString("involvedObject", "name")
	component, _ := e.FieldString("source", "component")
	if fmt.Sprint(count) != "3" || name != "example-foo" || component != "kubewire.io/test" {
		t.Fatalf("core event count %v, involvedObject %q, source %q", count, name, component)
	}
}
