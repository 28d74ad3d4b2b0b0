package metrics_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

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

// Issue 29: `--metrics-addr :P` bound every interface while `--ui :P` bound
// loopback. One rule now (Listen): an address without a host is loopback, and
// every interface must be asked for. A Server on ":P" cannot be reached on
// this machine's other addresses.
func TestServer_an_address_without_a_host_is_loopback(t *testing.T) {
	ln, err := metrics.Listen(":0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	ln.Close()
	if !metrics.Loopback(ln.Addr()) {
		t.Errorf("Listen(\":0\") listened on %v, want loopback", ln.Addr())
	}
	if all, err := metrics.Listen("0.0.0.0:0"); err != nil || metrics.Loopback(all.Addr()) {
		t.Errorf("Listen(\"0.0.0.0:0\") = %v, %v; want every interface", all.Addr(), err)
	} else {
		all.Close()
	}

	var other net.IP // an address of this machine that is not loopback
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			other = n.IP
			break
		}
	}
	if other == nil {
		t.Skip("this machine has no address but loopback")
	}
	ctx, cancel := context.WithCancel(context.Background())
	srv := &metrics.Server{Addr: ":" + port}
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	defer func() { cancel(); <-done }()
	// Wait until it serves on loopback, then try the other address.
	deadline := time.Now().Add(time.Minute) // a watchdog: Run neither served nor failed
	for served := false; !served; runtime.Gosched() {
		if c, err := net.Dial("tcp", "127.0.0.1:"+port); err == nil {
			c.Close()
			served = true
		}
		select {
		case err := <-done:
			t.Fatalf("Run: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("Run has not served on loopback in a minute")
		}
	}
	if c, err := net.Dial("tcp", net.JoinHostPort(other.String(), port)); err == nil {
		c.Close()
		t.Fatalf("Server{Addr: %q} answers on %s: it serves every interface", ":"+port, other)
	}
}
