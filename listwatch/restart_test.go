package listwatch_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/kubeconfig"
	"github.com/kubewire/kubewire/apiclient/realtest"
	"github.com/kubewire/kubewire/listwatch"
)

// TestIntegration_reflector_comes_back_after_the_apiserver_restarts kills a
// kube-apiserver under a running reflector, changes pods while it is down and after
// it is back, and checks that the reflector backs off, comes back and converges.
//
// The apiserver it kills is its own: a second kube-apiserver on the test cluster's
// etcd, started from the cluster's apiserver.sh on a free port (an HA pair, as far
// as etcd knows). Killing the cluster's own server would break the integration tests
// of other packages, which go test runs at the same time.
func TestIntegration_reflector_comes_back_after_the_apiserver_restarts(t *testing.T) {
	side, ns, api, c := withPrivateAPIServer(t, "kubewire-listwatch-restart")
	sideRC := side.Resource(apiclient.Pods).Namespace(ns)
	for _, name := range []string{"web-1", "web-2", "web-3"} {
		createPod(t, sideRC, name)
	}
	sink := newModelSink(nil)
	steps := make(chan listwatch.Step, 1000)
	r := listwatch.New(c.Resource(apiclient.Pods).Namespace(ns), sink, listwatch.Options{
		Logger: discard, OnStep: func(s listwatch.Step) { steps <- s }})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- r.Run(ctx) }()
	defer func() { cancel(); <-done }()
	deadline := time.After(3 * time.Minute)
	waitFor := func(what string, ok func(listwatch.Step) bool) {
		t.Helper()
		for {
			select {
			case s := <-steps:
				t.Log(s)
				if ok(s) {
					return
				}
			case <-deadline:
				t.Fatalf("gave up waiting for %s: %+v", what, r.Health())
			}
		}
	}
	waitFor("the first watch", func(s listwatch.Step) bool { return s.Op == listwatch.OpWatch })

	api.stop(t)
	waitFor("a backoff", func(s listwatch.Step) bool { return s.Op == listwatch.OpBackoff })
	if h := r.Health(); h.LastError == nil {
		t.Fatalf("no error in Health after the server went away: %+v", h)
	}
	deleteErr := sideRC.Delete(context.Background(), "web-2", apiclient.DeleteOptions{GracePeriodSeconds: new(int64)})
	if deleteErr != nil {
		t.Fatal(deleteErr)
	}
	createPod(t, sideRC, "web-4")
	api.start(t)
	createPod(t, sideRC, "web-5")
	want := strings.Join(serverState(t, sideRC), "\n")
	waitFor("the sink to match the server", func(listwatch.Step) bool { return strings.Join(sink.state(), "\n") == want })
	h := r.Health()
	t.Logf("converged: relists %d, watch restarts %d, last error %v", h.Relists, h.WatchRestarts, h.LastError)
}

func createPod(t *testing.T, rc apiclient.ResourceClient, name string) {
	t.Helper()
	body := fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":%q},"spec":{"containers":[{"name":"c","image":"nginx:1.27"}]}}`, name)
	if _, err := rc.Create(context.Background(), []byte(body), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
}

// withPrivateAPIServer starts a private kube-apiserver (startPrivateAPIServer) and
// returns a client of the shared one (side), a fresh namespace there, the private
// server and a client of it.
func withPrivateAPIServer(t *testing.T, prefix string) (side *apiclient.Client, ns string, api *privateAPIServer, c *apiclient.Client) {
	t.Helper()
	_, script := realtest.ClusterScript(t, securePort)
	cfg, _ := realtest.Config(t)
	side = integrationClient(t, cfg)
	ns = realtest.Namespace(t, side, prefix)
	api = startPrivateAPIServer(t, cfg, script)
	return side, ns, api, integrationClient(t, api.cfg)
}

// privateAPIServer is a kube-apiserver of the test's own, on the cluster's etcd.
type privateAPIServer struct {
	script string // its start script
	url    string
	log    string
	cmd    *exec.Cmd
	waited chan struct{}
	cfg    *kubeconfig.Config
}

// securePort is the flag of the cluster's apiserver.sh that a private server changes.
var securePort = regexp.MustCompile(`--secure-port "?\d+"?`)

// startPrivateAPIServer starts one from script, the cluster's apiserver.sh, with
// another port, to be reached with cfg's credentials, and stops it when the test
// ends, whatever happened.
func startPrivateAPIServer(t *testing.T, cfg *kubeconfig.Config, script []byte) *privateAPIServer {
	t.Helper()
	port := realtest.FreePort(t)
	tmp := t.TempDir()
	a := &privateAPIServer{script: filepath.Join(tmp, "apiserver.sh"), url: fmt.Sprintf("https://127.0.0.1:%d", port), log: filepath.Join(tmp, "apiserver.log")}
	if err := os.WriteFile(a.script, securePort.ReplaceAll(script, []byte(fmt.Sprintf("--secure-port %d", port))), 0o755); err != nil {
		t.Fatal(err)
	}
	mine := *cfg
	mine.Server = a.url
	a.cfg = &mine
	t.Cleanup(func() {
		if a.cmd != nil {
			a.stop(t)
		}
	})
	a.start(t)
	return a
}

func (a *privateAPIServer) start(t *testing.T) {
	t.Helper()
	logf, err := os.OpenFile(a.log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	a.cmd = exec.Command(a.script)
	a.cmd.Stdout, a.cmd.Stderr = logf, logf
	if err := a.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	a.waited = make(chan struct{})
	go func() { a.cmd.Wait(); logf.Close(); close(a.waited) }()
	rt, err := a.cfg.Transport()
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: rt, Timeout: 2 * time.Second}
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(90 * time.Second)
	for {
		if resp, err := hc.Get(a.url + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case <-a.waited:
			log, _ := os.ReadFile(a.log)
			t.Fatalf("the private kube-apiserver exited:\n%s", tail(string(log), 2000))
		case <-deadline:
			t.Fatal("the private kube-apiserver is not ready after 90 s")
		case <-tick.C:
		}
	}
}

// stop sends SIGTERM and waits for the process to exit (SIGKILL after 30 s).
func (a *privateAPIServer) stop(t *testing.T) {
	t.Helper()
	a.cmd.Process.Signal(os.Interrupt)
	select {
	case <-a.waited:
	case <-time.After(30 * time.Second):
		a.cmd.Process.Kill()
		<-a.waited
	}
	a.cmd = nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
