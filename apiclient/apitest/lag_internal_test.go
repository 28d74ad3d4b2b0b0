package apitest

import (
	"bufio"
	"context"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
)

// A held WatchLag keeps what arrived (the bytes wait in the body, unread);
// released, it hands them over in order. Other requests pass at once.
func TestWatchLag_holds_a_watch_and_nothing_else(t *testing.T) {
	s := NewServer(nil)
	s.CreateNamespaces("demo")
	defer s.Close()
	lag := NewWatchLag(s.Transport(), apiclient.Pods)
	c, err := s.Client(apiclient.Options{Transport: lag})
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodGet, s.URL+"/api/v1/namespaces/demo/pods?watch=true", nil)
	resp, err := lag.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, ok := resp.Body.(*lagBody)
	if !ok {
		t.Fatalf("the watch's body is a %T, not a lagging one", resp.Body)
	}
	release := lag.Hold()
	lines := make(chan string, 2)
	go func() {
		r := bufio.NewReader(resp.Body)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				close(lines)
				return
			}
			lines <- line
		}
	}()
	ctx := context.Background()
	pods := c.Resource(apiclient.Pods).Namespace("demo")
	if _, err := pods.Create(ctx, []byte(`{"metadata":{"name":"web-1"}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := pods.Get(ctx, "web-1"); err != nil {
		t.Fatalf("a GET through a held lag: %v", err)
	}
	// The event arrives, and waits: while held, the reader gets nothing of it.
	for deadline := time.Now().Add(10 * time.Second); ; runtime.Gosched() {
		body.mu.Lock()
		waiting := len(body.chunks)
		body.mu.Unlock()
		if waiting > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the watch event never reached the lag")
		}
	}
	select {
	case line := <-lines:
		t.Fatalf("a held watch gave %s", line)
	default:
	}
	release()
	lag.Delay(time.Millisecond)
	if _, err := pods.Create(ctx, []byte(`{"metadata":{"name":"web-2"}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"name":"web-1"`, `"name":"web-2"`} {
		select {
		case line := <-lines:
			if !strings.Contains(line, want) {
				t.Fatalf("watch line %s, want %s", line, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no watch line with %s in 10 s", want)
		}
	}
}
