package kubeconfig_test

import (
	"errors"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient/kubeconfig"
)

func TestTransport_rereads_the_token_file_at_most_once_a_minute(t *testing.T) {
	rec := newRecorder(t)
	dir := t.TempDir()
	path := writeFile(t, dir, "token", "first\n")
	clock := newClock()
	tr := mustTransport(t, &kubeconfig.Config{Server: rec.URL, Auth: kubeconfig.AuthConfig{TokenFile: path}, Now: clock.Now})

	steps := []struct {
		advance time.Duration
		write   string // rewrite the file first, if not ""
		want    string
	}{
		{0, "", "Bearer first"},
		{0, "second", "Bearer first"},          // rotated on disk, but read a moment ago
		{59 * time.Second, "", "Bearer first"}, // still within the minute
		{time.Second, "", "Bearer second"},     // a minute: read again
		{0, "", "Bearer second"},               // and cached again
		{time.Minute, "\n", "Bearer second"},   // an empty file (mid-rotation): keep the last good token
		{time.Minute, "third", "Bearer third"},
	}
	for i, s := range steps {
		if s.write != "" {
			writeFile(t, dir, "token", s.write)
		}
		clock.Advance(s.advance)
		get(t, tr, rec.URL)
		if got := rec.last().Header.Get("Authorization"); got != s.want {
			t.Fatalf("step %d: Authorization = %q, want %q", i, got, s.want)
		}
	}
}

// The error says which user's tokenFile, and why, but neither the token file's
// path nor the kubeconfig's: it is made while sending a request, and reaches
// logs and the live page (issue 29).
func TestTransport_token_file_gone_before_the_first_read_fails_the_request(t *testing.T) {
	rec := newRecorder(t)
	tr := mustTransport(t, &kubeconfig.Config{Server: rec.URL, Source: "/home/u/.kube/config", User: "admin", Auth: kubeconfig.AuthConfig{TokenFile: "/nonexistent/token"}})
	_, err := (&http.Client{Transport: tr}).Get(rec.URL)
	if err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("GET: err = %v, want a missing file", err)
	}
	checkSendError(t, err, "/home/u/.kube/config", `user "admin"`, "tokenFile", "open: no such file or directory")
	if strings.Contains(err.Error(), "/nonexistent/token") {
		t.Errorf("message %q holds the token file's path", err)
	}
}
