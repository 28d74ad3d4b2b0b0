package cli_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/builtin"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/foo"
	"github.com/kubewire/kubewire/controller/metrics"
)

// The Deployment `manifests` prints binds the metrics server beyond loopback,
// so that the kubelet's probes (Host: the pod's IP) and a scrape through the
// Service (Host: its name) are answered: here a Manager's registry and
// readiness, served as Manager.Run serves them on the address the container is
// given (its port 0, to be free), are asked with those Host headers through
// 127.0.0.1. Bound to loopback instead — `--metrics-addr :8080` — the same
// requests are refused: the manifest's address is what makes them work.
func TestManifests_probes_and_scrape_are_answered_by_pod_IP_and_Service_name(t *testing.T) {
	code, out, stderr := run(t, nil, "manifests", "foo", "-n", "demo", "--image", "registry.example/kubewire:dev")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var dep builtin.Deployment
	for _, doc := range documents(t, out) {
		if strings.Contains(string(doc), `"kind":"Deployment"`) {
			if err := json.Unmarshal(doc, &dep); err != nil {
				t.Fatal(err)
			}
		}
	}
	ctr := dep.Spec.Template.Spec.Containers[0]
	addr := flagValue(ctr.Args, "--metrics-addr")
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatalf("--metrics-addr %q: %v", addr, err)
	}
	if got, want := ctr.LivenessProbe.HTTPGet.Path+" "+ctr.ReadinessProbe.HTTPGet.Path, "/healthz /readyz"; got != want {
		t.Errorf("probes on %s; want %s", got, want)
	}
	if ctr.Ports[0].Name != ctr.LivenessProbe.HTTPGet.Port.String() || port != "8080" {
		t.Errorf("the probes ask port %q; the metrics server listens on %s, port %d named %q", ctr.LivenessProbe.HTTPGet.Port.String(), addr, ctr.Ports[0].ContainerPort, ctr.Ports[0].Name)
	}

	srv := apitest.NewServer(nil)
	srv.CreateNamespaces("demo")
	defer srv.Close()
	c, err := srv.Client(apiclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := controller.NewManager(c, controller.ManagerOptions{Namespace: "demo", Log: quietLogger})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := foo.Setup(m, foo.Options{}); err != nil {
		t.Fatal(err)
	}
	asked := map[string]string{
		"/healthz": "10.1.2.3:8080",                      // the kubelet's liveness probe
		"/readyz":  "10.1.2.3:8080",                      // its readiness probe
		"/metrics": "kubewire-foo-metrics.demo.svc:8080", // a scrape through the Service
	}
	for _, bind := range []struct {
		host     string
		answered bool
	}{{host, true}, {"127.0.0.1", false}} {
		ln, err := metrics.Listen(net.JoinHostPort(bind.host, "0"))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		served := make(chan error, 1)
		go func() { served <- (&metrics.Server{Registry: m.Registry(), Ready: m.Ready}).Serve(ctx, ln) }()
		_, lport, _ := net.SplitHostPort(ln.Addr().String())
		for path, hostHeader := range asked {
			req, _ := http.NewRequest("GET", "http://127.0.0.1:"+lport+path, nil)
			req.Host = hostHeader
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			// /readyz: not ready (503) until the Manager runs; answered either way.
			answered := resp.StatusCode == 200 || path == "/readyz" && resp.StatusCode == 503
			if answered != bind.answered {
				t.Errorf("bound to %s, GET %s with Host %s: %d %q; answered=%v, want %v", bind.host, path, hostHeader, resp.StatusCode, body, answered, bind.answered)
			}
			if bind.answered && path == "/metrics" && !strings.Contains(string(body), "kubewire_") {
				t.Errorf("the scrape has no kubewire_ series:\n%.300s", body)
			}
		}
		cancel()
		if err := <-served; err != nil {
			t.Fatal(err)
		}
	}
}

// flagValue is the value after name in args.
func flagValue(args []string, name string) string {
	for i, a := range args {
		if a == name && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}
