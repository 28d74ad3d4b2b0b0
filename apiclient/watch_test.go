package apiclient_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
)

// streamServer answers a watch with the given chunks, flushing after each, then
// either ends the body (hang false) or holds it open until the client goes away.
func streamServer(t *testing.T, hang bool, chunks ...string) (*apiclient.Client, chan string) {
	t.Helper()
	queries := make(chan string, 10)
	c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		queries <- r.URL.RawQuery
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(200)
		w.(http.Flusher).Flush() // the API server sends the headers at once
		for _, ch := range chunks {
			_, _ = io.WriteString(w, ch)
			w.(http.Flusher).Flush()
		}
		if hang {
			<-r.Context().Done()
		}
	})
	return c, queries
}

func event(typ, name, rv string) string {
	return fmt.Sprintf(`{"type":%q,"object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":%q,"namespace":"default","resourceVersion":%q,"managedFields":[{"manager":"m"}]}}}`+"\n", typ, name, rv)
}

func TestWatch_reads_events_one_at_a_time_then_EOF(t *testing.T) {
	c, queries := streamServer(t, false,
		event("ADDED", "a", "10"),
		event("MODIFIED", "a", "11")+event("DELETED", "a", "12"), // two events in one chunk
		`{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"20"}}}`,
		"\n")
	w, err := c.Resource(apiclient.Pods).Namespace("default").Watch(context.Background(), apiclient.WatchOptions{
		ListOptions: apiclient.ListOptions{ResourceVersion: "9", AllowWatchBookmarks: true, TimeoutSeconds: 300}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if got, want := <-queries, "allowWatchBookmarks=true&resourceVersion=9&timeoutSeconds=300&watch=true"; got != want {
		t.Fatalf("query %q, want %q", got, want)
	}
	var got []string
	for {
		ev, err := w.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if ev.Object.Metadata.ManagedFields != nil {
			t.Fatal("managedFields kept by default")
		}
		got = append(got, fmt.Sprintf("%s %s rv=%s", ev.Type, ev.Object.Key(), ev.Object.Metadata.ResourceVersion))
	}
	want := "ADDED default/a rv=10|MODIFIED default/a rv=11|DELETED default/a rv=12|BOOKMARK  rv=20"
	if strings.Join(got, "|") != want {
		t.Fatalf("events\n%s\nwant\n%s", strings.Join(got, "|"), want)
	}
}

func TestWatch_ERROR_410_is_a_Gone_StatusError(t *testing.T) {
	c, _ := streamServer(t, true,
		`{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (50)","reason":"Expired","code":410}}`+"\n")
	w, err := c.Resource(apiclient.Pods).Watch(context.Background(), apiclient.WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ev, err := w.Next()
	if !apiclient.IsGone(err) || ev.Type != apiclient.Error || ev.Status.Code != 410 {
		t.Fatalf("event %+v err %v, want ERROR 410", ev, err)
	}
	if !strings.Contains(err.Error(), "too old resource version") {
		t.Fatalf("err %q does not carry the server's message", err)
	}
}

func TestWatch_stream_cut_mid_event_is_an_error_not_EOF(t *testing.T) {
	c, _ := streamServer(t, false, event("ADDED", "a", "10"), `{"type":"MODIFIED","object":{"metadata":{"na`)
	w, err := c.Resource(apiclient.Pods).Watch(context.Background(), apiclient.WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Next(); err != nil {
		t.Fatal(err)
	}
	_, err = w.Next()
	if err == nil || err == io.EOF || !strings.Contains(err.Error(), "cut in the middle of an event") {
		t.Fatalf("err = %v, want a cut-stream error", err)
	}
}

func TestWatch_malformed_events_are_errors(t *testing.T) {
	for _, line := range []string{
		`{"type":"ADDED","object":{"metadata":{"name":"a"}}}x` + "\n",
		`{"type":"ADDED"}` + "\n",
		`{"type":7,"object":{}}` + "\n",
		`[1,2]` + "\n",
		`{"type":"ERROR","object":"not a status"}` + "\n",
	} {
		c, _ := streamServer(t, false, line)
		w, err := c.Resource(apiclient.Pods).Watch(context.Background(), apiclient.WatchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var last error
		for i := 0; i < 3 && last == nil; i++ {
			_, last = w.Next()
		}
		w.Close()
		if last == nil || last == io.EOF || !strings.HasPrefix(last.Error(), "watch pods: ") {
			t.Errorf("line %q: err = %v, want a 'watch pods: ' error", line, last)
		}
	}
}

func TestWatch_Close_from_another_goroutine_unblocks_Next(t *testing.T) {
	c, _ := streamServer(t, true)
	w, err := c.Resource(apiclient.Pods).Watch(context.Background(), apiclient.WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() {
		_, err := w.Next()
		done <- err
	}()
	w.Close()
	if err := <-done; err == nil || err == io.EOF {
		t.Fatalf("err = %v, want the stream closed", err)
	}
	w.Close() // twice is fine
}

func TestWatch_refused_by_the_server_is_a_StatusError(t *testing.T) {
	c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 403, statusBody(403, "Forbidden", `pods is forbidden: User "x" cannot watch resource "pods"`))
	})
	_, err := c.Resource(apiclient.Pods).Watch(context.Background(), apiclient.WatchOptions{})
	if !apiclient.IsForbidden(err) {
		t.Fatalf("err = %v, want Forbidden", err)
	}
}
