package listwatch_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
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
	clock := apitest.NewClock()
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
	clock := apitest.NewClock()
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
