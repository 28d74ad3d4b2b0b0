package cli_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
)

// The security promises of the command, end to end: a kubeconfig file, the
// command line, and what the user sees on stdout and stderr.

// TLS is verified unless the kubeconfig says insecure-skip-tls-verify: against a
// server whose CA the kubeconfig does not name, the command fails with one clear
// line and no request is served; with insecure-skip-tls-verify it works.
func TestSecurity_TLS_is_verified_unless_the_kubeconfig_says_insecure(t *testing.T) {
	var served atomic.Int32
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { served.Add(1) }))
	ts.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes
	t.Cleanup(ts.Close)
	cfg := kubeconfigFile(t, ts.URL, "", "    token: kw-tls-s3cr3t\n")
	code, stdout, stderr := run(t, nil, "get", "pods", "--kubeconfig", cfg)
	if code != 1 || stdout != "" || strings.Count(stderr, "\n") != 1 ||
		!strings.Contains(stderr, ts.URL) || !strings.Contains(stderr, "certificate signed by unknown authority") {
		t.Fatalf("unknown CA: exit %d stdout %q stderr %q; want exit 1 and one line naming the server and the unknown authority", code, stdout, stderr)
	}
	if n := served.Load(); n != 0 {
		t.Fatalf("%d requests were served over an unverified connection", n)
	}

	server, _, _ := apiServer(t)
	insecure := kubeconfigFile(t, server, "    insecure-skip-tls-verify: true\n", "    token: kw-tls-s3cr3t\n")
	if code, stdout, stderr := run(t, nil, "get", "pods", "-n", "demo", "--kubeconfig", insecure); code != 0 {
		t.Fatalf("insecure-skip-tls-verify: exit %d stdout %q stderr %q, want exit 0", code, stdout, stderr)
	}
	if code, _, stderr := run(t, nil, "get", "pods", "-n", "demo", "--kubeconfig", kubeconfigFile(t, server, "", "    token: kw-tls-s3cr3t\n")); code != 1 || !strings.Contains(stderr, "certificate signed by unknown authority") {
		t.Fatalf("the same server without insecure-skip-tls-verify: exit %d stderr %q, want the unknown authority", code, stderr)
	}
}

// A bearer token or a basic-auth password is never sent over plain http to a host
// that is not this machine: the command refuses with a clear line, and nothing
// reaches the network (here, the proxy every request would go through).
func TestSecurity_no_credentials_over_plain_http_to_a_remote_host(t *testing.T) {
	var proxied atomic.Int32
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxied.Add(1)
		w.WriteHeader(http.StatusBadGateway)
	}))
	t.Cleanup(proxy.Close)
	cluster := "    proxy-url: " + proxy.URL + "\n"
	for _, user := range []string{"    token: kw-plain-s3cr3t\n", "    username: admin\n    password: kw-plain-s3cr3t\n"} {
		code, stdout, stderr := run(t, nil, "get", "pods", "--kubeconfig", kubeconfigFile(t, "http://kube.example.invalid:8080", cluster, user))
		if code != 1 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "refusing to send credentials over plain http") {
			t.Errorf("%q: exit %d stderr %q; want exit 1 and one line refusing", user, code, stderr)
		}
		if strings.Contains(stdout+stderr, "kw-plain-s3cr3t") {
			t.Errorf("%q: the secret is in the output: %q", user, stdout+stderr)
		}
	}
	if n := proxied.Load(); n != 0 {
		t.Fatalf("%d requests left for the network carrying credentials over plain http", n)
	}
	// The control: without credentials the same kubeconfig does reach the network,
	// so the zero above is the refusal's doing.
	run(t, nil, "get", "pods", "--kubeconfig", kubeconfigFile(t, "http://kube.example.invalid:8080", cluster, "    {}\n"))
	if proxied.Load() == 0 {
		t.Fatal("without credentials no request went out either: the test proves nothing")
	}
}

// Tokens, passwords, client keys and what an exec plugin prints never appear on
// stdout or stderr: not in output, logs at -v 9, --trace, or errors.
func TestSecurity_credentials_never_reach_output_logs_or_trace(t *testing.T) {
	server, ca, srv := apiServer(t)
	if _, err := srv.Add(apiclient.Pods, `{"metadata":{"name":"web-0","namespace":"demo","labels":{"app":"web"}},"status":{"phase":"Running"}}`); err != nil {
		t.Fatal(err)
	}
	cluster := "    certificate-authority: " + ca + "\n"
	certPEM, keyPEM := clientCertificate(t)
	keyBody := strings.Split(string(keyPEM), "\n")[1] // a line of the key itself
	plugin := execPlugin(t, `{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"kw-exec-out-s3cr3t"}}`)
	broken := execPlugin(t, `{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"kw-exec-out-s3cr3t",`)
	users := []struct {
		name, user string
		secrets    []string
		fails      bool
	}{
		{"token", "    token: kw-token-s3cr3t\n", []string{"kw-token-s3cr3t"}, false},
		{"basic", "    username: admin\n    password: kw-password-s3cr3t\n",
			[]string{"kw-password-s3cr3t", base64.StdEncoding.EncodeToString([]byte("admin:kw-password-s3cr3t"))}, false},
		{"client_key", "    client-certificate-data: " + base64.StdEncoding.EncodeToString(certPEM) + "\n    client-key-data: " + base64.StdEncoding.EncodeToString(keyPEM) + "\n",
			[]string{keyBody, base64.StdEncoding.EncodeToString(keyPEM)[:40]}, false},
		{"exec_plugin", "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: " + plugin + "\n      interactiveMode: Never\n",
			[]string{"kw-exec-out-s3cr3t"}, false},
		{"exec_plugin_broken_output", "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: " + broken + "\n      interactiveMode: Never\n",
			[]string{"kw-exec-out-s3cr3t"}, true},
	}
	commands := [][]string{
		{"get", "pods", "-n", "demo", "-o", "yaml"},
		{"get", "pods", "-A", "-o", "json", "-l", "app=web"},
		{"sync", "pods", "-n", "demo", "--dump"},
		{"api-resources"},
		{"get", "pots"},                          // an error
		{"get", "pods", "missing", "-n", "demo"}, // a 404
	}
	for _, u := range users {
		t.Run(u.name, func(t *testing.T) {
			cfg := kubeconfigFile(t, server, cluster, u.user)
			for _, args := range commands {
				args = append(args, "--kubeconfig", cfg, "--trace", "-v", "9")
				code, stdout, stderr := run(t, nil, args...)
				if u.fails != (code == 1) && args[1] != "pots" && args[2] != "missing" {
					t.Errorf("%q: exit %d\n%s", args, code, stderr)
				}
				for _, secret := range u.secrets {
					if strings.Contains(stdout, secret) || strings.Contains(stderr, secret) {
						t.Errorf("%q: %q is in the output:\nstdout: %s\nstderr: %s", args, secret, stdout, stderr)
					}
				}
				if u.fails && !strings.Contains(stderr, "exec: plugin") {
					t.Errorf("%q: the plugin's failure is not reported: %q", args, stderr)
				}
				if len(stderr) == 0 {
					t.Errorf("%q: nothing on stderr; --trace and -v 9 should have said something to search", args)
				}
			}
		})
	}
}

// A recording holds what the server said, never how the client proved who it is:
// recorded with a token and with an exec plugin's credential, the file (0600)
// holds neither, and nor does the command's output.
func TestSecurity_recordings_hold_no_credentials(t *testing.T) {
	server, ca, srv := apiServer(t)
	cluster := "    certificate-authority: " + ca + "\n"
	plugin := execPlugin(t, `{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"kw-exec-out-s3cr3t"}}`)
	for i, user := range []string{
		"    token: kw-token-s3cr3t\n",
		"    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: " + plugin + "\n      interactiveMode: Never\n",
	} {
		out := filepath.Join(t.TempDir(), "pods.rec")
		args := []string{"record", "pods", "-n", "demo", "-o", out, "--events", "1", "-v", "9", "--kubeconfig", kubeconfigFile(t, server, cluster, user)}
		code, _, stderr := recordWhile(t, nil, args, func() {
			if _, err := srv.Add(apiclient.Pods, fmt.Sprintf(`{"metadata":{"name":"p%d","namespace":"demo"}}`, i)); err != nil {
				t.Error(err)
			}
		})
		if code != 0 {
			t.Fatalf("%q: exit %d\n%s", user, code, stderr)
		}
		body, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		checkRecording(t, out, i, []string{"ADDED"}) // 0600, parses, one event
		for _, secret := range []string{"kw-token-s3cr3t", "kw-exec-out-s3cr3t"} {
			if strings.Contains(string(body), secret) || strings.Contains(stderr, secret) {
				t.Fatalf("%q: %q is in the recording or the output", user, secret)
			}
		}
	}
}

// apiServer is an API server the command can resolve resources on: the discovery
// documents recorded from kube-apiserver 1.32, everything else passed to a live
// apitest server (which serves no discovery). It returns the URL, the path of its
// CA certificate, and the apitest server, to add objects to.
func apiServer(t *testing.T) (server, caPath string, srv *apitest.Server) {
	t.Helper()
	srv = apitest.NewServer(nil)
	srv.CreateNamespaces("demo", "rec", "x", "ns", "tables", "a-very-long-namespace-name") // where these tests write
	t.Cleanup(srv.Close)
	target, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	base, err := srv.Config().Transport()
	if err != nil {
		t.Fatal(err)
	}
	// FlushInterval -1: a watch must reach the client event by event.
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(target) }, Transport: base, FlushInterval: -1}
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.ReplaceAll(strings.TrimPrefix(r.URL.Path, "/"), "/", "_") + ".json"
		if body, err := os.ReadFile(filepath.Join("..", "..", "apiclient", "testdata", "discovery", "legacy", name)); err == nil {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(body)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	caPath = filepath.Join(t.TempDir(), "ca.crt")
	if err := os.WriteFile(caPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	return ts.URL, caPath, srv
}

// kubeconfigFile writes a kubeconfig for server with the given extra cluster and
// user lines (indented four spaces), and returns its path.
func kubeconfigFile(t *testing.T, server, cluster, user string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config")
	body := "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: " + server + "\n" + cluster +
		"users:\n- name: u\n  user:\n" + user + "contexts:\n- name: ctx\n  context: {cluster: c, user: u, namespace: demo}\ncurrent-context: ctx\n"
	if strings.HasPrefix(user, "    {}") {
		body = strings.Replace(body, "  user:\n    {}\n", "  user: {}\n", 1)
	}
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// execPlugin writes a credential plugin that prints stdout and exits 0.
func execPlugin(t *testing.T, stdout string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "plugin")
	script := "#!/bin/sh\ncat <<'EOF'\n" + stdout + "\nEOF\n"
	if err := os.WriteFile(path, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	return path
}

// clientCertificate makes a self-signed client certificate and its key, as PEM.
func clientCertificate(t *testing.T) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kubewire-test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
}
