package live_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/controller/live"
)

// demoTrace is `kubewire demo`'s trace (testdata/demo.trace, durations
// replaced by 1ms): the story of pod demo/web-2, created Pending, made Running,
// which makes the podrestart controller restart deployment demo/tools, then
// deleted.
func demoTrace(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("testdata/demo.trace")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

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
	for _, line := range demoTrace(t) {
		h.Trace(line)
	}
	var got []string
	for _, hop := range follow(t, ts, "demo/web-2").Hops {
		got = append(got, hop.Stage+" "+hop.Verb+" "+hop.Key)
	}
	want := []string{
		"listwatch ADD demo/web-2", "fifo pop demo/web-2", "store add demo/web-2",
		"handler add demo/web-2", "handler add demo/web-2",
		"apiclient PATCH demo/web-2", // the story's PATCH pods/status: the pod is Running
		"listwatch UPDATE demo/web-2", "fifo pop demo/web-2", "store update demo/web-2",
		"handler update demo/web-2", "handler update demo/web-2",
		"queue add demo/tools", "controller reconcile demo/tools", "apiclient PATCH demo/tools", "controller reconcile demo/tools",
		"listwatch DELETE demo/web-2", "fifo pop demo/web-2", "store delete demo/web-2",
		"handler delete demo/web-2", "handler delete demo/web-2", "apiclient DELETE demo/web-2",
	}
	if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
		t.Fatalf("path of demo/web-2:\n%s\nwant:\n%s", g, w)
	}
}
