package live_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/controller/live"
)

func newHub(t *testing.T, opts live.Options) (*live.Hub, *httptest.Server) {
	t.Helper()
	h := live.New(opts)
	ts := httptest.NewServer(h.Handler())
	t.Cleanup(func() { h.Close(); ts.Close() })
	return h, ts
}

type path struct {
	Key  string     `json:"key"`
	Hops []live.Hop `json:"hops"`
}

func follow(t *testing.T, ts *httptest.Server, key string) path {
	t.Helper()
	resp, err := http.Get(ts.URL + "/api/follow?key=" + key)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var p path
	if err := json.NewDecoder(resp.Body).Decode(&p); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestHub_follows_a_pod_to_the_reconcile_its_change_caused(t *testing.T) {
	h, ts := newHub(t, live.Options{Command: "demo"})
	for _, e := range live.DemoEvents() {
		h.Trace(e)
	}
	var got []string
	for _, hop := range follow(t, ts, "demo/web-2").Hops {
		got = append(got, hop.Stage+" "+hop.Verb+" "+hop.Key)
	}
	want := []string{
		"listwatch ADD demo/web-2", "fifo pop demo/web-2", "store add demo/web-2",
		"handler add demo/web-2", "handler add demo/web-2",
		"apiclient PATCH demo/web-2",  // the story's PATCH pods/status, sent: the pod is Running
		"listwatch UPDATE demo/web-2", // the event it causes comes after it,
		"apiclient PATCH demo/web-2",  // and so may the answer
		"fifo pop demo/web-2", "store update demo/web-2",
		"handler update demo/web-2", "handler update demo/web-2",
		"queue add demo/tools", "controller reconcile demo/tools", "apiclient PATCH demo/tools", "apiclient PATCH demo/tools", "controller reconcile demo/tools",
		"apiclient DELETE demo/web-2", "listwatch DELETE demo/web-2", "apiclient DELETE demo/web-2", "fifo pop demo/web-2", "store delete demo/web-2",
		"handler delete demo/web-2", "handler delete demo/web-2",
	}
	if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
		t.Fatalf("path of demo/web-2:\n%s\nwant:\n%s", g, w)
	}
}
