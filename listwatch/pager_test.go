package listwatch_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/kubeconfig"
	"github.com/kubewire/kubewire/apiclient/recording"
	"github.com/kubewire/kubewire/listwatch"
)

const (
	page1 = "> GET /api/v1/namespaces/demo/pods?limit=1&resourceVersion=0"
	page2 = "> GET /api/v1/namespaces/demo/pods?continue=p2&limit=1"
)

func pagedList(rv, next string, pods ...string) string {
	return `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"` + rv + `","continue":"` + next + `"},"items":[` + strings.Join(pods, ",") + `]}`
}

// replayClient serves rec and returns a client of demo's pods; the test fails at
// its end if the requests did not follow rec.
func replayClient(t *testing.T, rec *recording.Recording) apiclient.ResourceClient {
	t.Helper()
	srv := apitest.NewServer(nil)
	srv.CreateNamespaces("demo")
	t.Cleanup(func() {
		if err := srv.Err(); err != nil {
			t.Error(err)
		}
		srv.Close()
	})
	srv.Replay(rec)
	c, err := srv.Client(apiclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c.Resource(apiclient.Pods).Namespace("demo")
}

func TestPager_follows_continue_tokens_to_the_last_page(t *testing.T) {
	rc := replayClient(t, script(t,
		page1, ok, pagedList("50", "p2", podJSON("a", "3")),
		page2, ok, pagedList("50", "", podJSON("b", "4")),
	))
	var pages []string
	p := listwatch.Pager{OnPage: func(page int, o apiclient.ListOptions) {
		pages = append(pages, fmt.Sprintf("%d rv=%q continue=%q", page, o.ResourceVersion, o.Continue))
	}}
	var keys []string
	rv, err := p.List(context.Background(), rc, apiclient.ListOptions{ResourceVersion: "0", Limit: 1}, func(o *apiclient.Object) error {
		keys = append(keys, o.Key())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(keys, " ")+" @"+rv, "demo/a demo/b @50"; got != want {
		t.Fatalf("listed %q, want %q", got, want)
	}
	if got, want := strings.Join(pages, ", "), `1 rv="0" continue="", 2 rv="" continue="p2"`; got != want {
		t.Fatalf("pages %s, want %s", got, want)
	}
}

func TestPager_starts_over_unpaged_when_a_continue_token_expires(t *testing.T) {
	rc := replayClient(t, script(t,
		page1, ok, pagedList("50", "p2", podJSON("a", "3")),
		page2, "< 410", gone410,
		"> GET /api/v1/namespaces/demo/pods?resourceVersion=0", ok, podList("90", podJSON("a", "3"), podJSON("b", "4"), podJSON("c", "5")),
	))
	items, rv, err := listwatch.ListAll(context.Background(), rc, apiclient.ListOptions{ResourceVersion: "0", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, o := range items {
		keys = append(keys, o.Key())
	}
	if got, want := strings.Join(keys, " ")+" @"+rv, "demo/a demo/b demo/c @90"; got != want {
		t.Fatalf("listed %q, want %q: the unpaged list alone, not page 1 plus it", got, want)
	}
}

// It starts over once: a server whose "unpaged" LIST pages anyway, and whose
// token then expires again, would make it start over for ever, so the second
// expiry is the list's error.
func TestPager_starts_over_only_once(t *testing.T) {
	rc := replayClient(t, script(t,
		page1, ok, pagedList("50", "p2", podJSON("a", "3")),
		page2, "< 410", gone410,
		"> GET /api/v1/namespaces/demo/pods?resourceVersion=0", ok, pagedList("90", "p3", podJSON("a", "3")),
		"> GET /api/v1/namespaces/demo/pods?continue=p3", "< 410", gone410,
	))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // past the script, the server holds a request
	defer cancel()
	_, _, err := listwatch.ListAll(ctx, rc, apiclient.ListOptions{ResourceVersion: "0", Limit: 1})
	if !apiclient.IsGone(err) {
		t.Fatalf("ListAll: %v, want the second 410", err)
	}
}

func TestPager_returns_the_error_of_a_page(t *testing.T) {
	rc := replayClient(t, script(t,
		page1, ok, pagedList("50", "p2", podJSON("a", "3")),
		page2, "< 500", `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"etcd is sad","reason":"InternalError","code":500}`,
	))
	_, _, err := listwatch.ListAll(context.Background(), rc, apiclient.ListOptions{ResourceVersion: "0", Limit: 1})
	if got, want := apiclient.CodeOf(err), 500; got != want {
		t.Fatalf("error %v (code %d), want code %d", err, got, want)
	}
}

// A server that answers a continue token with the same token would be paged
// forever, everything read kept (issue 16: sync and get grew without limit):
// the second time is an error.
func TestPager_refuses_a_repeated_continue_token(t *testing.T) {
	rc := replayClient(t, script(t,
		page1, ok, pagedList("50", "p2", podJSON("a", "3")),
		page2, ok, pagedList("50", "p2", podJSON("b", "4")),
	))
	_, _, err := listwatch.ListAll(context.Background(), rc, apiclient.ListOptions{ResourceVersion: "0", Limit: 1})
	if err == nil || !strings.Contains(err.Error(), "page 2 has the continue token of page 1") {
		t.Fatalf("ListAll: %v, want a repeated-token error", err)
	}
}

// A token seen before in the same list ends it, in any position: A, B, A is no
// more a list than A, A (issue 29: two tokens alternating passed the check, and
// sync passed 6 GB).
func TestPager_refuses_continue_tokens_that_alternate(t *testing.T) {
	rc := replayClient(t, script(t,
		page1, ok, pagedList("50", "A", podJSON("a", "3")),
		"> GET /api/v1/namespaces/demo/pods?continue=A&limit=1", ok, pagedList("50", "B", podJSON("b", "4")),
		"> GET /api/v1/namespaces/demo/pods?continue=B&limit=1", ok, pagedList("50", "A", podJSON("c", "5")),
	))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // past the script, the server holds a request
	defer cancel()
	_, _, err := listwatch.ListAll(ctx, rc, apiclient.ListOptions{ResourceVersion: "0", Limit: 1})
	if !errors.Is(err, apiclient.ErrListLimit) || !strings.Contains(err.Error(), "page 3 has the continue token of page 1") {
		t.Fatalf("ListAll: %v, want an error wrapping ErrListLimit: page 3 repeats page 1's token", err)
	}
}

// A server that makes up a new token for every page is stopped by the list's
// bytes, all pages together (ListLimits.Bytes): the pages are each well under
// the bound, the list is not (issue 29: sync passed 6 GB, get 570 MB).
func TestPager_stops_a_list_that_never_ends_at_its_bytes(t *testing.T) {
	var pages atomic.Int64
	items := strings.Repeat(podJSON("p", "1")+",", 99) + podJSON("p", "1")
	rc := handlerClient(t, apiclient.Options{ListLimits: apiclient.ListLimits{Bytes: 1 << 20}}, func(w http.ResponseWriter, r *http.Request) {
		n := pages.Add(1)
		if n > 1000 {
			http.Error(w, "enough", 500) // the old code would page on without end
			return
		}
		fmt.Fprintf(w, `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1","continue":"p%d"},"items":[%s]}`, n, items)
	})
	kept := 0
	_, err := listwatch.Pager{}.List(context.Background(), rc, apiclient.ListOptions{Limit: 100}, func(*apiclient.Object) error {
		kept++
		return nil
	})
	if !errors.Is(err, apiclient.ErrListLimit) || !strings.Contains(err.Error(), "over 1 MiB") {
		t.Fatalf("an endless list: %v, want an error wrapping ErrListLimit saying the list is over 1 MiB", err)
	}
	if perPage := int64(len(items)); pages.Load() > 1<<20/perPage+1 {
		t.Fatalf("%d pages of %d bytes asked for, past the bound", pages.Load(), perPage)
	}
}

// handlerClient is a client of demo's pods on a plain HTTP server with handler.
func handlerClient(t *testing.T, opts apiclient.Options, handler http.HandlerFunc) apiclient.ResourceClient {
	t.Helper()
	ts := httptest.NewServer(handler)
	t.Cleanup(ts.Close)
	c, err := apiclient.New(&kubeconfig.Config{Server: ts.URL, Source: "test"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c.Resource(apiclient.Pods).Namespace("demo")
}
