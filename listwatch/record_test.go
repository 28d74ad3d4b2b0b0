package listwatch_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/apiclient/recording"
	"github.com/kubewire/kubewire/listwatch"
)

const secretList = `{"kind":"SecretList","apiVersion":"v1","metadata":{"resourceVersion":"10"},"items":[{"metadata":{"name":"db","namespace":"demo","resourceVersion":"7"},"data":{"password":"aHVudGVyMg=="},"type":"Opaque"}]}`

func secretEvent(typ, rv, value string) string {
	return `{"type":"` + typ + `","object":{"kind":"Secret","apiVersion":"v1","metadata":{"name":"db","namespace":"demo","resourceVersion":"` + rv + `"},"data":{"password":"` + value + `"},"type":"Opaque"}}`
}

// TestRecord_of_a_replay_is_the_replay_with_secrets_redacted records from the
// replaying server: the requests Record makes must match the script (they are the
// reflector's), and the recording must hold the script's bytes, secrets excepted.
func TestRecord_of_a_replay_is_the_replay_with_secrets_redacted(t *testing.T) {
	srv := apitest.NewServer(nil)
	srv.CreateNamespaces("demo")
	defer srv.Close()
	clock := clock.NewFake()
	srv.OnReply = func(rep apitest.Reply) {
		if lasted(rep.Exchange) { // else the watch ended at once, a failure Record stops at
			clock.Step(time.Second)
		}
	}
	srv.Replay(script(t,
		"> GET /api/v1/namespaces/demo/secrets?limit=500&resourceVersion=0", ok, secretList,
		"> GET /api/v1/namespaces/demo/secrets?allowWatchBookmarks=true&resourceVersion=10&timeoutSeconds=300&watch=true", ok,
		secretEvent("MODIFIED", "11", "c2VjcmV0"), "< end",
		"> GET /api/v1/namespaces/demo/secrets?allowWatchBookmarks=true&resourceVersion=11&timeoutSeconds=300&watch=true", ok,
		secretEvent("MODIFIED", "12", "YWdhaW4="), secretEvent("DELETED", "13", "YWdhaW4="), "< stall",
	))
	var out bytes.Buffer
	sum, err := listwatch.Record(context.Background(), srv.Config(), apiclient.Secrets, &out, listwatch.RecordOptions{
		Namespace: "demo", Events: 3, Comments: []string{"a test"}, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sum, (listwatch.Recorded{Requests: 3, Listed: 1, Events: 3, Synced: true}); got != want {
		t.Fatalf("Record says %+v, want %+v", got, want)
	}
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"aHVudGVyMg==", "c2VjcmV0", "YWdhaW4="} {
		if strings.Contains(out.String(), secret) {
			t.Fatalf("the recording holds the secret %q:\n%s", secret, out.String())
		}
	}
	rec, err := recording.Parse(&out)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rec.Comments[len(rec.Comments)-1], "a test"; got != want {
		t.Fatalf("last header comment %q, want %q", got, want)
	}
	want := []string{
		strings.Replace(secretList, "aHVudGVyMg==", recording.RedactedBase64, 1),
		secretEvent("MODIFIED", "11", recording.RedactedBase64),
		secretEvent("MODIFIED", "12", recording.RedactedBase64),
		secretEvent("DELETED", "13", recording.RedactedBase64),
	}
	var got []string
	for _, ex := range rec.Exchanges {
		for _, l := range ex.Lines {
			got = append(got, string(l))
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("recorded lines\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got, want := rec.Exchanges[1].End, recording.Finished; got != want {
		t.Fatalf("the first watch ended with %v, want %v", got, want)
	}
	if got, want := rec.Exchanges[2].End, recording.Stall; got != want {
		t.Fatalf("the watch the recorder stopped ended with %v, want %v", got, want)
	}
}

// TestRecord_into_a_file_reads_back: what Record writes into a file of
// recording.Create (which only its owner reads: package recording tests that)
// opens as a recording of the LIST and the watch.
func TestRecord_into_a_file_reads_back(t *testing.T) {
	srv := apitest.NewServer(nil)
	srv.CreateNamespaces("demo")
	defer srv.Close()
	clock := clock.NewFake()
	srv.OnReply = func(rep apitest.Reply) {
		if lasted(rep.Exchange) { // else the watch ended at once, a failure Record stops at
			clock.Step(time.Second)
		}
	}
	srv.Replay(script(t,
		"> GET /api/v1/namespaces/demo/pods?limit=500&resourceVersion=0", ok, podList("10"),
		"> GET /api/v1/namespaces/demo/pods?allowWatchBookmarks=true&resourceVersion=10&timeoutSeconds=300&watch=true", ok, ev("ADDED", "a", "11"), "< stall",
	))
	path := filepath.Join(t.TempDir(), "pods.rec")
	f, err := recording.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := listwatch.Record(context.Background(), srv.Config(), apiclient.Pods, f, listwatch.RecordOptions{Namespace: "demo", Events: 1}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	rec, err := recording.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(rec.Exchanges), 2; got != want {
		t.Fatalf("%d exchanges recorded, want %d (the LIST and the watch)", got, want)
	}
}

// Record asks GET /version first, as an informer's Reflector does, and on
// v1.33 and later lists the latest state with one LIST, as ListCheapest does
// there: its recording then replays into a Reflector given the client's
// ServerVersion — an informer's default — with nothing the replay server finds
// amiss. (Record listed with LIST at "0" before, which no default informer
// sends to such a server.)
func TestRecord_asks_the_version_and_replays_into_a_default_Reflector(t *testing.T) {
	const (
		version = `{"major":"1","minor":"37","gitVersion":"v1.37.2"}`
		list    = "> GET /api/v1/namespaces/demo/pods"
		listed  = `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"10"},"items":[{"metadata":{"name":"a","namespace":"demo","resourceVersion":"9"}}]}`
		watch   = "> GET /api/v1/namespaces/demo/pods?allowWatchBookmarks=true&resourceVersion=10&timeoutSeconds=300&watch=true"
		b       = `{"type":"ADDED","object":{"metadata":{"name":"b","namespace":"demo","resourceVersion":"11"}}}`
	)
	real := apitest.NewServer(nil) // stands for the v1.37 server recorded from
	defer real.Close()
	real.Replay(script(t, "> GET /version", ok, version, "< end", list, ok, listed, "< end", watch, ok, b, "< stall"))
	var out bytes.Buffer
	sum, err := listwatch.Record(context.Background(), real.Config(), apiclient.Pods, &out, listwatch.RecordOptions{Namespace: "demo", Events: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := real.Err(); err != nil {
		t.Fatalf("Record did not ask what an informer asks: %v", err)
	}
	if got, want := sum, (listwatch.Recorded{Requests: 3, Listed: 1, Events: 1, Synced: true}); got != want {
		t.Fatalf("Record says %+v, want %+v", got, want)
	}
	rec, err := recording.Parse(&out)
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.Exchanges[0].Method + " " + rec.Exchanges[0].Target; got != "GET /version" {
		t.Fatalf("the recording opens with %s, want GET /version", got)
	}

	srv := apitest.NewServer(nil)
	srv.CreateNamespaces("demo")
	defer srv.Close()
	srv.Replay(rec)
	c, err := srv.Client(apiclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	events := make(chan listwatch.Step, 16)
	r := listwatch.New(c.Resource(apiclient.Pods).Namespace("demo"), &modelSink{}, listwatch.Options{
		ServerVersion: c.ServerVersion, Logger: discard, OnStep: func(s listwatch.Step) {
			if s.Op == listwatch.OpAdd {
				events <- s
			}
		}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	select {
	case s := <-events:
		if s.Key != "demo/b" {
			t.Errorf("the replayed watch's event: %s, want demo/b", s.Key)
		}
	case <-srv.Done(): // a mismatch
	}
	cancel()
	<-done
	if err := srv.Err(); err != nil {
		t.Fatalf("the replay server reports: %v", err)
	}
}

// One apitest call makes a Reflector relist: ExpireWatches ends its watch with
// a 410 Expired, and the Reflector, which had an event on that watch, lists
// again at once — no clock to move, no wait past the second within which a
// watch that simply ended counts as a failure.
func TestReflector_relists_at_once_when_the_test_server_expires_its_watch(t *testing.T) {
	srv := apitest.NewServer(nil)
	srv.CreateNamespaces("demo")
	defer srv.Close()
	if _, err := srv.Add(apiclient.Pods, `{"metadata":{"name":"a","namespace":"demo"}}`); err != nil {
		t.Fatal(err)
	}
	c, err := srv.Client(apiclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	steps := make(chan listwatch.Step, 64)
	r := listwatch.New(c.Resource(apiclient.Pods).Namespace("demo"), &modelSink{}, listwatch.Options{Logger: discard, OnStep: func(s listwatch.Step) { steps <- s }})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	await := func(op listwatch.Op) listwatch.Step {
		t.Helper()
		for {
			select {
			case s := <-steps:
				if s.Op == op {
					return s
				}
				if s.Op == listwatch.OpBackoff {
					t.Fatalf("the Reflector backs off: %+v", s)
				}
			case <-ctx.Done():
				t.Fatalf("no %s step", op)
			}
		}
	}
	await(listwatch.OpWatch)
	// An event on the watch first: a 410 right after a list, with no event
	// between, is met with a back-off (reflector.go's relist), not a relist.
	if _, err := srv.Add(apiclient.Pods, `{"metadata":{"name":"b","namespace":"demo"}}`); err != nil {
		t.Fatal(err)
	}
	await(listwatch.OpAdd)
	srv.ExpireWatches(apiclient.Pods)
	await(listwatch.OpList) // the relist
	if s := await(listwatch.OpListed); s.Items != 2 {
		t.Fatalf("the relist holds %d objects, want 2", s.Items)
	}
	cancel()
	<-done
}

// olderServer stands a live apitest server in for a kube-apiserver of v1.32:
// it answers GET /version as that release does and hands every other request
// to the server, which serves streaming lists as 1.32 does.
type olderServer struct{ base http.RoundTripper }

func (o olderServer) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Path != "/version" {
		return o.base.RoundTrip(req)
	}
	const body = `{"major":"1","minor":"32","gitVersion":"v1.32.4"}`
	return &http.Response{StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(body)),
		ContentLength: int64(len(body)), Request: req}, nil
}

// Before 1.33 ListCheapest streams its lists, so Record does too: the
// recording of a v1.32 server opens with its GET /version, then the streaming
// list (the objects as ADDED, the initial-events-end bookmark) goes on as the
// watch, and it replays into a Reflector given the client's ServerVersion —
// an informer's default — with nothing the replay server finds amiss. The
// list's initial events and its bookmark are not watch events (Events counts
// the change made after OnSynced, alone), and OnSynced comes once the bookmark
// passed. (Record sent a LIST at "0" before, and recorded no /version: the
// replay answered the informer's /version with a 404, and its streaming list
// did not match the script.)
func TestRecord_of_a_v1_32_server_streams_its_list_and_replays_into_a_default_Reflector(t *testing.T) {
	real := apitest.NewServer(nil)
	real.CreateNamespaces("demo")
	defer real.Close()
	c, err := real.Client(apiclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pods := c.Resource(apiclient.Pods).Namespace("demo")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := pods.Create(ctx, []byte(`{"metadata":{"name":"a"}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	synced := make(chan listwatch.Recorded, 1)
	var out bytes.Buffer
	type result struct {
		sum listwatch.Recorded
		err error
	}
	recorded := make(chan result, 1)
	go func() {
		sum, err := listwatch.Record(ctx, real.Config(), apiclient.Pods, &out, listwatch.RecordOptions{
			Namespace: "demo", Events: 1, Transport: olderServer{real.Transport()}, Clock: clock.NewFake(),
			OnSynced: func(r listwatch.Recorded) { synced <- r }})
		recorded <- result{sum, err}
	}()
	select {
	case r := <-synced:
		if got, want := r, (listwatch.Recorded{Requests: 2, Listed: 1, Synced: true}); got != want {
			t.Fatalf("OnSynced was told %+v, want %+v", got, want)
		}
	case r := <-recorded:
		t.Fatalf("Record ended before its list was complete: %+v, %v", r.sum, r.err)
	}
	if _, err := pods.Create(ctx, []byte(`{"metadata":{"name":"b"}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	r := <-recorded
	if r.err != nil {
		t.Fatal(r.err)
	}
	if got, want := r.sum, (listwatch.Recorded{Requests: 2, Listed: 1, Events: 1, Synced: true}); got != want {
		t.Fatalf("Record says %+v, want %+v", got, want)
	}
	rec, err := recording.Parse(bytes.NewReader(out.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var requests []string
	for _, ex := range rec.Exchanges {
		requests = append(requests, ex.Method+" "+ex.Target)
	}
	const stream = "GET /api/v1/namespaces/demo/pods?allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&timeoutSeconds="
	if len(requests) != 2 || requests[0] != "GET /version" || !strings.HasPrefix(requests[1], stream) {
		t.Fatalf("recorded\n%s\nwant GET /version, then %s…", strings.Join(requests, "\n"), stream)
	}
	var types []string
	for _, l := range rec.Exchanges[1].Lines {
		var ev struct {
			Type   string
			Object struct{ Metadata apiclient.ObjectMeta }
		}
		if err := json.Unmarshal(l, &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Type == "BOOKMARK" && ev.Object.Metadata.Annotations["k8s.io/initial-events-end"] == "true" {
			types = append(types, "END")
			continue
		}
		types = append(types, ev.Type+" "+ev.Object.Metadata.Name)
	}
	if got, want := strings.Join(types, ", "), "ADDED a, END, ADDED b"; got != want {
		t.Fatalf("the stream holds %s, want %s", got, want)
	}

	srv := apitest.NewServer(nil)
	defer srv.Close()
	srv.Replay(rec)
	rc, err := srv.Client(apiclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	steps := make(chan listwatch.Step, 16)
	replay := listwatch.New(rc.Resource(apiclient.Pods).Namespace("demo"), &modelSink{}, listwatch.Options{
		ServerVersion: rc.ServerVersion, Logger: discard, OnStep: func(s listwatch.Step) {
			if s.Op == listwatch.OpListed || s.Op == listwatch.OpAdd {
				steps <- s
			}
		}})
	rctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- replay.Run(rctx) }()
	var got []listwatch.Step
	for len(got) < 2 {
		select {
		case s := <-steps:
			got = append(got, s)
		case <-srv.Done(): // a mismatch, or a request after the script
			got = append(got, listwatch.Step{}, listwatch.Step{})
		case <-ctx.Done():
			t.Fatalf("the replay was not played to its end: %v", got)
		}
	}
	stop()
	<-done
	if err := srv.Err(); err != nil {
		t.Fatalf("the replay server reports: %v", err)
	}
	if got[0].Op != listwatch.OpListed || !got[0].Initial || got[0].Items != 1 || got[1].Op != listwatch.OpAdd || got[1].Key != "demo/b" {
		t.Fatalf("the replay's steps: %v, want the streamed list of 1 object, then ADD demo/b", got)
	}
}
