package listwatch_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/apiclient/kubeconfig"
	"github.com/kubewire/kubewire/listwatch"
)

// A server that ignores sendInitialEvents costs a sync at most a second more than
// a LIST, and loses no event: the Reflector sees through it (a change before the
// end bookmark at once, objects and then silence after initialEventsIdle), lists
// with LIST, and watches from the LIST's resourceVersion. The server here is a
// plain httptest server holding a and b at resourceVersion 10, with c added at 11
// and a changed at 12; it answers the streaming list as a plain watch, in two ways.
func TestReflector_falls_back_within_a_second_from_a_server_that_ignores_sendInitialEvents(t *testing.T) {
	for _, tt := range []struct {
		name   string
		stream []string // what the server sends for the streaming list, then it holds the stream open
		step   int      // after this many ITEM steps the test moves the clock by a second (0: never)
	}{
		// bench's `clientgo serve`, a proxy: changes, as a plain watch sends them.
		{"changes before the end", []string{ev("MODIFIED", "b", "6")}, 0},
		// A watch from "" answered the legacy way: the state as ADDED, then nothing.
		{"the state and then silence", []string{ev("ADDED", "a", "5"), ev("ADDED", "b", "6")}, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			requests := make(chan string, 16)
			ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				q := r.URL.Query()
				w.Header().Set("Content-Type", "application/json")
				if q.Get("watch") != "true" {
					requests <- "LIST"
					io.WriteString(w, podList("10", podJSON("a", "5"), podJSON("b", "6")))
					return
				}
				lines := tt.stream // sendInitialEvents=true is taken for a plain watch
				if rv := q.Get("resourceVersion"); rv != "" {
					requests <- "WATCH rv=" + rv
					lines = map[string][]string{"10": {ev("ADDED", "c", "11"), ev("MODIFIED", "a", "12")}}[rv]
				} else {
					requests <- "STREAM"
				}
				for _, l := range lines {
					io.WriteString(w, l+"\n")
				}
				w.(http.Flusher).Flush()
				<-r.Context().Done() // the stream stays open, as a watch does
			}))
			defer ts.Close()
			clock := clock.NewFake()
			c, err := apiclient.New(&kubeconfig.Config{Server: ts.URL, Source: "test"},
				apiclient.Options{Transport: ts.Client().Transport, QPS: -1, Clock: clock})
			if err != nil {
				t.Fatal(err)
			}
			start := clock.Now()
			listedAt := make(chan time.Duration, 1)
			items := 0
			sink := &chanSink{calls: make(chan string, 16)}
			r := listwatch.New(c.Resource(apiclient.Pods).Namespace("demo"), sink, listwatch.Options{
				List: listwatch.ListStreaming, Clock: clock, Logger: discard,
				OnStep: func(s listwatch.Step) {
					switch {
					case s.Op == listwatch.OpItem && tt.step > 0:
						if items++; items == tt.step {
							clock.Step(time.Second)
						}
					case s.Op == listwatch.OpListed:
						listedAt <- clock.Now().Sub(start)
					}
				},
			})
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- r.Run(ctx) }()
			defer func() { cancel(); <-done }()

			deadline := time.After(20 * time.Second) // real time: a regression fails, never hangs
			var got []string
			for len(got) < 3 {
				select {
				case call := <-sink.calls:
					got = append(got, call)
				case <-deadline:
					t.Fatalf("after 20 s the sink was told %q; requests so far: %q", got, drain(requests))
				}
			}
			want := []string{"REPLACE rv=10 [demo/a@5 demo/b@6]", "ADD demo/c@11", "UPDATE demo/a@12"}
			if !slices.Equal(got, want) {
				t.Fatalf("the sink was told %q, want %q", got, want)
			}
			if took := <-listedAt; took > time.Second {
				t.Fatalf("the LIST came %v after the start, on the fake clock; want at most 1s", took)
			}
			if got, want := drain(requests), []string{"STREAM", "LIST", "WATCH rv=10"}; !slices.Equal(got, want) {
				t.Fatalf("requests %q, want %q", got, want)
			}
		})
	}
}

// chanSink tells each call on calls, one line each.
type chanSink struct{ calls chan string }

func (s *chanSink) Add(o *apiclient.Object) error    { s.calls <- "ADD " + at(o); return nil }
func (s *chanSink) Update(o *apiclient.Object) error { s.calls <- "UPDATE " + at(o); return nil }
func (s *chanSink) Delete(o *apiclient.Object) error { s.calls <- "DELETE " + at(o); return nil }
func (s *chanSink) Replace(list []*apiclient.Object, rv string) error {
	var keys []string
	for _, o := range list {
		keys = append(keys, at(o))
	}
	s.calls <- fmt.Sprintf("REPLACE rv=%s %v", rv, keys)
	return nil
}

func at(o *apiclient.Object) string { return o.Key() + "@" + o.Metadata.ResourceVersion }

// drain is what ch holds now.
func drain(ch chan string) []string {
	var out []string
	for {
		select {
		case s := <-ch:
			out = append(out, s)
		default:
			return out
		}
	}
}
