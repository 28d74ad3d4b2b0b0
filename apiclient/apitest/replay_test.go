package apitest_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
)

var pods = apiclient.Pods

func TestReplay_serves_LIST_pages_in_order(t *testing.T) {
	s, c, _ := newServer(t)
	s.Replay(script(t,
		"> GET /api/v1/namespaces/demo/pods?limit=1",
		"< 200",
		`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"5","continue":"next"},"items":[`+pod("a", "3")+`]}`,
		"> GET /api/v1/namespaces/demo/pods?continue=next&limit=1",
		"< 200",
		`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[`+pod("b", "4")+`]}`,
	))
	rc := c.Resource(pods).Namespace("demo")
	first, err := rc.List(context.Background(), apiclient.ListOptions{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	second, err := rc.List(context.Background(), apiclient.ListOptions{Limit: 1, Continue: first.Continue})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range append(first.Items, second.Items...) {
		got = append(got, o.Key())
	}
	if got, want := strings.Join(got, " "), "demo/a demo/b"; got != want {
		t.Fatalf("listed %q, want %q", got, want)
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
}

func TestReplay_answers_a_request_that_does_not_match_with_400_and_reports_it(t *testing.T) {
	s, c, _ := newServer(t)
	s.Replay(script(t, "> GET /api/v1/namespaces/demo/pods?limit=500&resourceVersion=0", "< 200", `{"kind":"PodList","metadata":{},"items":[]}`))
	_, err := c.Resource(pods).Namespace("demo").List(context.Background(), apiclient.ListOptions{Limit: 500})
	if got, want := apiclient.CodeOf(err), 400; got != want {
		t.Fatalf("code %d (%v), want %d", got, err, want)
	}
	<-s.Done()
	if err := s.Err(); err == nil || !strings.Contains(err.Error(), `resourceVersion="", want "0"`) {
		t.Fatalf("Err() = %v, want the resourceVersion mismatch", err)
	}
}

func TestReplay_ignores_timeoutSeconds_which_the_client_picks_at_random(t *testing.T) {
	s, c, _ := newServer(t)
	s.Replay(script(t, "> GET /api/v1/pods?timeoutSeconds=300&watch=true", "< 200", event("ADDED", "a", "2"), "< end"))
	w, err := c.Resource(pods).Watch(context.Background(), apiclient.WatchOptions{ListOptions: apiclient.ListOptions{TimeoutSeconds: 417}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Next(); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Next(); err != io.EOF {
		t.Fatalf("Next() = %v, want io.EOF", err)
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
}

// watchEnding plays one watch exchange that ends as end says and returns the events
// read and the error that ended them.
func watchEnding(t *testing.T, end ...string) ([]string, error) {
	t.Helper()
	s, c, _ := newServer(t)
	s.Replay(script(t, append([]string{"> GET /api/v1/pods?watch=true", "< 200", event("ADDED", "a", "2"), event("MODIFIED", "a", "3")}, end...)...))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	replied := make(chan string, 1)
	s.OnReply = func(r apitest.Reply) { replied <- r.ResourceVersion }
	w, err := c.Resource(pods).Watch(ctx, apiclient.WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var got []string
	for {
		ev, err := w.Next()
		if err != nil {
			if got, want := <-replied, "3"; got != want {
				t.Errorf("OnReply saw resourceVersions %q, want %q", got, want)
			}
			return got, err
		}
		got = append(got, fmt.Sprintf("%s %s", ev.Type, ev.Object.Metadata.ResourceVersion))
		if len(got) == 2 && end[0] == "< stall" {
			cancel() // the stall holds until the client gives up
		}
	}
}

func TestReplay_ends_a_watch_the_way_the_script_says(t *testing.T) {
	for _, tt := range []struct {
		name   string
		end    []string
		events string
		err    func(error) bool
	}{
		{"end: the server finished", []string{"< end"}, "ADDED 2|MODIFIED 3", func(err error) bool { return err == io.EOF }},
		{"close: the connection dropped", []string{"< close"}, "ADDED 2|MODIFIED 3", func(err error) bool { return err != io.EOF && errors.Is(err, io.ErrUnexpectedEOF) }},
		{"cut: an event sent in half", []string{event("DELETED", "a", "4"), "< cut 25"}, "ADDED 2|MODIFIED 3", func(err error) bool { return errors.Is(err, io.ErrUnexpectedEOF) }},
		{"stall: nothing until the client leaves", []string{"< stall"}, "ADDED 2|MODIFIED 3", func(err error) bool { return errors.Is(err, context.Canceled) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := watchEnding(t, tt.end...)
			if strings.Join(got, "|") != tt.events {
				t.Fatalf("events %q, want %q", strings.Join(got, "|"), tt.events)
			}
			if !tt.err(err) {
				t.Fatalf("ended with %v", err)
			}
		})
	}
}

func TestReplay_429_with_Retry_After_is_retried_by_the_client_after_that_long(t *testing.T) {
	s, c, clock := newServer(t)
	s.Replay(script(t,
		"> GET /api/v1/pods",
		"< 429 retry-after=7",
		`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"TooManyRequests","code":429}`,
		"> GET /api/v1/pods",
		"< 200",
		`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"9"},"items":[]}`,
	))
	s.OnReply = func(r apitest.Reply) {
		if r.Exchange.RetryAfter > 0 {
			go func() {
				clock.BlockUntilDue(7 * time.Second)
				clock.Step(7 * time.Second)
			}()
		}
	}
	list, err := c.Resource(pods).List(context.Background(), apiclient.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := list.ResourceVersion, "9"; got != want {
		t.Fatalf("rv %q, want %q", got, want)
	}
}

func TestReplay_holds_requests_after_the_script_and_closes_Done(t *testing.T) {
	s, c, _ := newServer(t)
	s.Replay(script(t, "> GET /api/v1/pods", "< 200", `{"kind":"PodList","metadata":{"resourceVersion":"9"},"items":[]}`))
	if _, err := c.Resource(pods).List(context.Background(), apiclient.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.Done():
		t.Fatal("Done before the client moved past the script")
	default:
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error)
	go func() {
		_, err := c.Resource(pods).List(ctx, apiclient.ListOptions{})
		errc <- err
	}()
	<-s.Done()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("held request ended with %v, want context.Canceled", err)
	}
	if answered, extra := s.Played(); answered != 1 || extra != 1 {
		t.Fatalf("Played() = %d, %d; want 1, 1", answered, extra)
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
}

func TestReplay_Err_reports_exchanges_never_requested(t *testing.T) {
	s, _, _ := newServer(t)
	s.Replay(script(t, "> GET /api/v1/pods", "< 200", `{}`))
	if err := s.Err(); err == nil || !strings.Contains(err.Error(), "1 of 1 scripted exchanges were never requested") {
		t.Fatalf("Err() = %v", err)
	}
}

// GET /version is answered from the recording's exchange whenever it is asked,
// as often as it is asked, and never counts as part of the script: a client that
// does not ask (a Reflector with ListPaged or ListStreaming) plays the same
// recording as one that asks before its first list. Without one it is a 404.
func TestReplay_answers_version_from_the_recording_out_of_the_script(t *testing.T) {
	withVersion := []string{
		"> GET /version", "< 200", `{"major":"1","minor":"32","gitVersion":"v1.32.4"}`, "< end",
		"> GET /api/v1/namespaces/demo/pods?limit=500&resourceVersion=0", "< 200",
		`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"10"},"items":[]}`, "< end",
	}
	for _, asks := range []int{0, 1, 2} {
		s, c, _ := newServer(t)
		s.Replay(script(t, withVersion...))
		for range asks {
			fresh, err := s.Client(apiclient.Options{}) // a Client keeps the answer: a new one asks again
			if err != nil {
				t.Fatal(err)
			}
			v, err := fresh.ServerVersion(context.Background())
			if err != nil || v.GitVersion != "v1.32.4" {
				t.Fatalf("asked %d times: %+v, %v; want v1.32.4", asks, v, err)
			}
		}
		if _, err := c.Resource(pods).Namespace("demo").List(context.Background(), apiclient.ListOptions{ResourceVersion: "0", Limit: 500}); err != nil {
			t.Fatal(err)
		}
		if err := s.Err(); err != nil {
			t.Fatalf("asked /version %d times: %v", asks, err)
		}
	}
	s, c, _ := newServer(t)
	s.Replay(script(t, withVersion[4:]...))
	if _, err := c.ServerVersion(context.Background()); apiclient.CodeOf(err) != 404 {
		t.Fatalf("a recording without /version: %v, want 404", err)
	}
	if err := s.Err(); err == nil || !strings.Contains(err.Error(), "never requested") {
		t.Fatalf("Err: %v; want only the LIST never requested", err)
	}
}
