package metrics_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/controller/metrics"
)

// listen opens a loopback listener on a free port.
func listen(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// get fetches url and returns its status and body.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, string(body)
}

func TestServer_serves_until_ctx_is_done_then_returns_nil(t *testing.T) {
	reg := new(metrics.Registry)
	reg.Counter("up_total", "Up.").Inc()
	ln := listen(t)
	url := "http://" + ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	srv := &metrics.Server{Registry: reg, Ready: readyAs("leader", nil)}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()

	if code, body := get(t, url+"/readyz"); code != 200 || body != "ok (leader)" {
		t.Fatalf("/readyz = %d %q, want 200 %q", code, body, "ok (leader)")
	}
	if code, body := get(t, url+"/metrics"); code != 200 || !strings.Contains(body, "up_total 1\n") {
		t.Fatalf("/metrics = %d %q, want 200 and up_total 1", code, body)
	}

	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Serve returned %v after ctx was done, want nil", err)
	}
	if _, err := http.Get(url + "/healthz"); err == nil {
		t.Fatal("the server still answers after Serve returned")
	}
}

func TestServer_lets_a_request_in_flight_finish(t *testing.T) {
	ln := listen(t)
	url := "http://" + ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	inProbe, release := make(chan struct{}), make(chan struct{})
	srv := &metrics.Server{Ready: func() (string, error) {
		close(inProbe)
		<-release
		return "leader", nil
	}}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()

	type answer struct {
		code int
		body string
	}
	answered := make(chan answer, 1)
	go func() {
		res, err := http.Get(url + "/readyz")
		if err != nil {
			answered <- answer{body: err.Error()}
			return
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		answered <- answer{res.StatusCode, string(body)}
	}()
	<-inProbe // the request is being served
	cancel()  // shutdown begins while it is
	close(release)
	if got, want := <-answered, (answer{200, "ok (leader)"}); got != want {
		t.Fatalf("in-flight /readyz got %+v, want %+v", got, want)
	}
	if err := <-done; err != nil {
		t.Fatalf("Serve = %v, want nil", err)
	}
}

func TestServer_Run_fails_at_once_when_it_cannot_listen(t *testing.T) {
	taken := listen(t)
	defer taken.Close()
	srv := &metrics.Server{Addr: taken.Addr().String()}
	err := srv.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "metrics server") || !strings.Contains(err.Error(), "address already in use") {
		t.Fatalf("Run on a taken port = %v, want an address-in-use error", err)
	}
}
