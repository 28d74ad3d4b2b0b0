package live_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/controller/live"
)

// The page's three files are served with their types, and nothing else is
// (no directory listing, no file outside web/).
func TestHandler_serves_the_page_and_its_files_and_nothing_else(t *testing.T) {
	_, ts := newHub(t, live.Options{Command: "run"})
	for _, tc := range []struct {
		path, status, ctype, body string
	}{
		{"/", "200 OK", "text/html; charset=utf-8", `<script src="/static/app.js"`},
		{"/static/app.js", "200 OK", "text/javascript; charset=utf-8", ""},
		{"/static/style.css", "200 OK", "text/css; charset=utf-8", ""},
		{"/static/", "404 Not Found", "", ""},
		{"/static/nothing.js", "404 Not Found", "", ""},
		{"/static/web", "404 Not Found", "", ""},
		{"/static/%2e%2e%2fserver.go", "404 Not Found", "", ""},
	} {
		resp, err := http.Get(ts.URL + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got, want := resp.Status, tc.status; got != want {
			t.Errorf("GET %s: %s, want %s", tc.path, got, want)
			continue
		}
		if tc.ctype == "" {
			continue
		}
		if got, want := resp.Header.Get("Content-Type"), tc.ctype; got != want {
			t.Errorf("GET %s: Content-Type %q, want %q", tc.path, got, want)
		}
		if got, want := resp.ContentLength, int64(len(body)); got != want || got == 0 {
			t.Errorf("GET %s: Content-Length %d, body %d bytes", tc.path, got, want)
		}
		if !strings.Contains(string(body), tc.body) {
			t.Errorf("GET %s: the body lacks %q", tc.path, tc.body)
		}
		if got, want := resp.Header.Get("X-Content-Type-Options"), "nosniff"; got != want {
			t.Errorf("GET %s: X-Content-Type-Options %q, want %q", tc.path, got, want)
		}
	}
}
