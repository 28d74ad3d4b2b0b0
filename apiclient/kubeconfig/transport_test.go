package kubeconfig_test

import (
	"crypto/tls"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kubewire/kubewire/apiclient/kubeconfig"
)

func TestTransport_TLS_server_verification(t *testing.T) {
	ts := tlsServer(t, nil, func(w http.ResponseWriter, r *http.Request) {})
	ca := serverCAPEM(ts)
	// httptest's certificate is for 127.0.0.1 and example.com.
	tests := []struct {
		name    string
		tls     kubeconfig.TLSConfig
		wantErr string // "" means 200
	}{
		{"ca_data_trusts_the_server", kubeconfig.TLSConfig{CAData: ca}, ""},
		{"system_roots_do_not_know_a_test_ca", kubeconfig.TLSConfig{}, "certificate"},
		{"another_ca_is_refused", kubeconfig.TLSConfig{CAData: newCA(t).PEM}, "certificate"},
		{"insecure_skips_verification", kubeconfig.TLSConfig{Insecure: true}, ""},
		{"tls_server_name_is_checked_instead_of_the_host", kubeconfig.TLSConfig{CAData: ca, ServerName: "example.com"}, ""},
		{"a_wrong_tls_server_name_fails", kubeconfig.TLSConfig{CAData: ca, ServerName: "wrong.example"}, "certificate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := mustTransport(t, &kubeconfig.Config{Server: ts.URL, TLS: tt.tls})
			resp, err := (&http.Client{Transport: tr}).Get(ts.URL)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("GET: err = %v, want one about %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("GET: %v", err)
			}
			resp.Body.Close()
			if got, want := resp.StatusCode, 200; got != want {
				t.Fatalf("status = %d, want %d", got, want)
			}
		})
	}
}

func TestTransport_refuses_TLS_below_1_2(t *testing.T) {
	ts := tlsServer(t, &tls.Config{MaxVersion: tls.VersionTLS11}, func(http.ResponseWriter, *http.Request) {})
	tr := mustTransport(t, &kubeconfig.Config{Server: ts.URL, TLS: kubeconfig.TLSConfig{Insecure: true}})
	if _, err := (&http.Client{Transport: tr}).Get(ts.URL); err == nil {
		t.Fatal("GET over TLS 1.1 succeeded, want a handshake failure")
	}
}

func TestTransport_client_certificate_from_kubeconfig(t *testing.T) {
	ca := newCA(t)
	ts := clientCertServer(t, ca)
	cert, key := ca.issueClient(t, "alice")
	dir := t.TempDir()
	writeFile(t, dir, "pki/ca.crt", string(serverCAPEM(ts)))
	writeFile(t, dir, "pki/alice.crt", string(cert))
	writeFile(t, dir, "pki/alice.key", string(key))
	cluster := "clusters: [{name: c, cluster: {server: " + ts.URL + ", certificate-authority: pki/ca.crt}}]\n"
	for _, tt := range []struct{ name, user string }{
		{"inline_data", "client-certificate-data: " + b64(string(cert)) + ", client-key-data: " + b64(string(key))},
		{"files_relative_to_the_kubeconfig", "client-certificate: pki/alice.crt, client-key: pki/alice.key"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := mustParse(t, dir, "current-context: x\n"+cluster+
				"contexts: [{name: x, context: {cluster: c, user: u}}]\n"+
				"users: [{name: u, user: {"+tt.user+"}}]\n")
			status, body := get(t, mustTransport(t, cfg), ts.URL)
			if got, want := status, 200; got != want {
				t.Fatalf("status = %d, want %d", got, want)
			}
			if got, want := body, "alice"; got != want {
				t.Fatalf("server saw client %q, want %q", got, want)
			}
		})
	}

	t.Run("no_certificate_no_entry", func(t *testing.T) {
		tr := mustTransport(t, &kubeconfig.Config{Server: ts.URL, TLS: kubeconfig.TLSConfig{CAData: serverCAPEM(ts)}})
		if _, err := (&http.Client{Transport: tr}).Get(ts.URL); err == nil {
			t.Fatal("GET without a client certificate succeeded, want the server to refuse it")
		}
	})
}

func TestTransport_sets_auth_and_impersonation_headers(t *testing.T) {
	rec := newRecorder(t)
	base := kubeconfig.Config{Server: rec.URL}
	tests := []struct {
		name string
		auth kubeconfig.AuthConfig
		want http.Header
	}{
		{"bearer_token", kubeconfig.AuthConfig{Token: "tok"}, http.Header{"Authorization": {"Bearer tok"}}},
		{"basic_auth", kubeconfig.AuthConfig{Username: "admin", Password: "pw"}, http.Header{"Authorization": {"Basic YWRtaW46cHc="}}},
		{"impersonation", kubeconfig.AuthConfig{
			Token: "tok", Impersonate: "jane", ImpersonateUID: "42", ImpersonateGroups: []string{"devs", "ops"},
			ImpersonateExtra: map[string][]string{"scopes": {"view", "edit"}, "a/b": {"x"}},
		}, http.Header{
			"Authorization":            {"Bearer tok"},
			"Impersonate-User":         {"jane"},
			"Impersonate-Uid":          {"42"},
			"Impersonate-Group":        {"devs", "ops"},
			"Impersonate-Extra-Scopes": {"view", "edit"},
			"Impersonate-Extra-A%2Fb":  {"x"},
		}},
		{"anonymous", kubeconfig.AuthConfig{}, http.Header{"Authorization": nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := base
			cfg.Auth = tt.auth
			if status, _ := get(t, mustTransport(t, &cfg), rec.URL+"/api"); status != 200 {
				t.Fatalf("status = %d", status)
			}
			got := rec.last().Header
			for k, want := range tt.want {
				if g, w := strings.Join(got.Values(k), ","), strings.Join(want, ","); g != w {
					t.Errorf("%s = %q, want %q", k, g, w)
				}
			}
		})
	}
}

func TestTransport_does_not_change_the_callers_request(t *testing.T) {
	rec := newRecorder(t)
	tr := mustTransport(t, &kubeconfig.Config{Server: rec.URL, Auth: kubeconfig.AuthConfig{Token: "tok", Impersonate: "jane"}})
	req, _ := http.NewRequest("GET", rec.URL, nil)
	req.Header.Set("Accept", "application/json")
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got, want := len(req.Header), 1; got != want {
		t.Fatalf("caller's request has %d headers after RoundTrip (%v), want %d", got, req.Header, want)
	}
	if got, want := rec.last().Header.Get("Authorization"), "Bearer tok"; got != want {
		t.Fatalf("server saw Authorization %q, want %q", got, want)
	}
}

func TestTransport_keeps_an_Authorization_the_caller_set(t *testing.T) {
	rec := newRecorder(t)
	tr := mustTransport(t, &kubeconfig.Config{Server: rec.URL, Auth: kubeconfig.AuthConfig{Token: "tok"}})
	req, _ := http.NewRequest("GET", rec.URL, nil)
	req.Header.Set("Authorization", "Bearer caller")
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got, want := rec.last().Header.Get("Authorization"), "Bearer caller"; got != want {
		t.Fatalf("server saw Authorization %q, want %q", got, want)
	}
}

func TestTransport_sends_credentials_only_to_its_own_server(t *testing.T) {
	other := newRecorder(t)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/elsewhere", http.StatusFound)
	}))
	defer api.Close()
	tr := mustTransport(t, &kubeconfig.Config{Server: api.URL, Auth: kubeconfig.AuthConfig{Token: "tok", Impersonate: "jane"}})
	_, err := (&http.Client{Transport: tr}).Get(api.URL + "/api")
	if err == nil || !strings.Contains(err.Error(), "credentials are for") {
		t.Fatalf("a redirect to another host: %v, want it refused", err)
	}
	if n := len(other.authorizations()); n != 0 {
		t.Fatalf("the redirect target got %d requests", n)
	}
}

func TestTransport_refuses_credentials_over_plain_http(t *testing.T) {
	t.Run("server_is_plain_http_and_not_loopback", func(t *testing.T) {
		for _, auth := range []kubeconfig.AuthConfig{
			{Token: "s3cr3t"},
			{Username: "u", Password: "hunter2"},
			{TokenFile: "/nonexistent"},
			{Exec: &kubeconfig.ExecConfig{APIVersion: kubeconfig.ExecAPIv1, Command: "x", InteractiveMode: "Never"}},
		} {
			_, err := (&kubeconfig.Config{Server: "http://10.1.2.3:8080", Source: "/k", Cluster: "c", Auth: auth}).Transport()
			checkError(t, err, "/k", `cluster "c"`, "server", "refusing to send credentials over plain http")
		}
	})
	t.Run("request_to_a_plain_http_host_when_no_server_is_set", func(t *testing.T) {
		tr := mustTransport(t, &kubeconfig.Config{Auth: kubeconfig.AuthConfig{Token: "s3cr3t"}})
		body := &closeRecorder{Reader: strings.NewReader("{}")}
		req, _ := http.NewRequest("POST", "http://kube.example.invalid/api", body)
		_, err := tr.RoundTrip(req)
		if err == nil || !strings.Contains(err.Error(), "refusing to send credentials over plain http") {
			t.Fatalf("RoundTrip: err = %v, want a refusal", err)
		}
		if !body.closed {
			t.Fatal("the request body was not closed (RoundTripper contract)")
		}
	})
	t.Run("loopback_http_is_allowed", func(t *testing.T) {
		rec := newRecorder(t)
		tr := mustTransport(t, &kubeconfig.Config{Server: rec.URL, Auth: kubeconfig.AuthConfig{Token: "tok"}})
		if status, _ := get(t, tr, rec.URL+"/api"); status != 200 {
			t.Fatalf("GET %s: status %d", rec.URL, status)
		}
		// Other spellings of this machine are accepted too (checked without dialing).
		for _, server := range []string{"http://localhost:8001", "http://[::1]:8080", "http://127.0.0.2"} {
			if _, err := (&kubeconfig.Config{Server: server, Auth: kubeconfig.AuthConfig{Token: "tok"}}).Transport(); err != nil {
				t.Errorf("Transport for %s: %v", server, err)
			}
		}
	})
	t.Run("without_credentials_plain_http_is_fine", func(t *testing.T) {
		if _, err := (&kubeconfig.Config{Server: "http://10.1.2.3:8080"}).Transport(); err != nil {
			t.Fatal(err)
		}
	})
}

func TestTransport_proxy_url_and_disable_compression(t *testing.T) {
	proxy := newRecorder(t) // answers "ok" to whatever it is asked, as a proxy would relay
	proxyURL, _ := url.Parse(proxy.URL)
	for _, tt := range []struct {
		name         string
		disable      bool
		wantEncoding string
	}{
		{"compression_on_by_default", false, "gzip"},
		{"disable_compression", true, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tr := mustTransport(t, &kubeconfig.Config{Server: "http://kube.example.invalid", Proxy: proxyURL, DisableCompression: tt.disable})
			status, body := get(t, tr, "http://kube.example.invalid/api")
			if status != 200 || body != "ok" {
				t.Fatalf("GET = %d %q, want 200 from the proxy", status, body)
			}
			seen := proxy.last()
			if got, want := seen.Host, "kube.example.invalid"; got != want {
				t.Fatalf("proxy saw Host %q, want %q", got, want)
			}
			if got := seen.Header.Get("Accept-Encoding"); got != tt.wantEncoding {
				t.Fatalf("Accept-Encoding = %q, want %q", got, tt.wantEncoding)
			}
		})
	}
}

func TestTransport_checks_a_hand_built_config_like_Load_does(t *testing.T) {
	for _, tt := range []struct {
		name   string
		auth   kubeconfig.AuthConfig
		tls    kubeconfig.TLSConfig
		entry  string
		field  string
		reason string
	}{
		{"two_credentials", kubeconfig.AuthConfig{Token: "s3cr3t", Password: "hunter2"}, kubeconfig.TLSConfig{},
			`user "u"`, "", "more than one of token"},
		{"exec_without_command", kubeconfig.AuthConfig{Exec: &kubeconfig.ExecConfig{APIVersion: kubeconfig.ExecAPIv1}}, kubeconfig.TLSConfig{},
			`user "u"`, "exec", "command: missing"},
		{"exec_without_api_version", kubeconfig.AuthConfig{Exec: &kubeconfig.ExecConfig{Command: "x"}}, kubeconfig.TLSConfig{},
			`user "u"`, "exec", "apiVersion: want"},
		{"exec_and_a_client_certificate", kubeconfig.AuthConfig{CertData: []byte("x"), Exec: &kubeconfig.ExecConfig{APIVersion: kubeconfig.ExecAPIv1, Command: "x"}}, kubeconfig.TLSConfig{},
			`user "u"`, "exec", "a client certificate is set too"},
		{"certificate_without_its_key", kubeconfig.AuthConfig{CertData: []byte("x")}, kubeconfig.TLSConfig{},
			`user "u"`, "client-certificate-data/client-key-data", "tls:"},
		{"insecure_with_a_ca", kubeconfig.AuthConfig{}, kubeconfig.TLSConfig{Insecure: true, CAData: []byte("x")},
			`cluster "c"`, "insecure-skip-tls-verify", "keep one"},
		{"ca_not_pem", kubeconfig.AuthConfig{}, kubeconfig.TLSConfig{CAData: []byte("s3cr3t")},
			`cluster "c"`, "certificate-authority-data", "no PEM certificate found"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := (&kubeconfig.Config{Server: "https://h", Source: "/k", Cluster: "c", User: "u", Auth: tt.auth, TLS: tt.tls}).Transport()
			checkError(t, err, "/k", tt.entry, tt.field, tt.reason)
		})
	}
	t.Run("server_not_a_url", func(t *testing.T) {
		_, err := (&kubeconfig.Config{Server: "h:6443", Source: "/k", Cluster: "c"}).Transport()
		checkError(t, err, "/k", `cluster "c"`, "server", "want https://host[:port]")
	})
}

// closeRecorder is a request body that remembers being closed.
type closeRecorder struct {
	io.Reader
	closed bool
}

func (c *closeRecorder) Close() error { c.closed = true; return nil }

// A client certificate is a credential too: a redirect to another host must not
// get it (issue 16: the bearer token was dropped, but the certificate went with
// the TLS handshake). The request to the other host is refused; it sees nothing.
func TestTransport_presents_no_client_certificate_to_another_host(t *testing.T) {
	ca := newCA(t)
	var reached atomic.Int64
	other := tlsServer(t, &tls.Config{ClientAuth: tls.RequestClientCert}, func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
	})
	api := clientCertServerWith(t, ca, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/elsewhere", http.StatusFound)
	})
	cert, key := ca.issueClient(t, "alice")
	tr := mustTransport(t, &kubeconfig.Config{Server: api.URL, TLS: kubeconfig.TLSConfig{CAData: serverCAPEM(api)},
		Auth: kubeconfig.AuthConfig{CertData: cert, KeyData: key}})
	_, err := (&http.Client{Transport: tr}).Get(api.URL + "/api")
	if err == nil || !strings.Contains(err.Error(), "credentials are for") {
		t.Fatalf("a redirect to another host: %v, want it refused", err)
	}
	if n := reached.Load(); n != 0 {
		t.Fatalf("the other host was reached %d times", n)
	}
}

// A plain-http server is allowed a credential only on loopback, where nobody else
// reads it — unless a plain-http proxy elsewhere relays it (issue 16: the token
// went to proxy-url in clear). A loopback or https proxy is fine.
func TestTransport_refuses_credentials_through_a_plain_http_proxy(t *testing.T) {
	for _, tt := range []struct {
		proxy string
		ok    bool
	}{
		{"http://proxy.example.invalid:3128", false},
		{"http://127.0.0.1:3128", true},
		{"https://proxy.example.invalid:3128", true},
	} {
		proxyURL, _ := url.Parse(tt.proxy)
		_, err := (&kubeconfig.Config{Server: "http://127.0.0.1:8080", Proxy: proxyURL, Source: "test",
			Auth: kubeconfig.AuthConfig{Token: "tok"}}).Transport()
		if (err == nil) != tt.ok || err != nil && !strings.Contains(err.Error(), "proxy-url") {
			t.Errorf("token via proxy %s: %v, want ok=%v", tt.proxy, err, tt.ok)
		}
	}
}

// A server that echoes the request's Authorization header in a failed answer
// must not put the token in front of the user: the body of every failed answer
// comes back with each copy of the credential masked (issue 16: the token was
// printed in the error line). Bearer tokens and basic auth alike.
func TestTransport_masks_the_credential_in_failed_answers(t *testing.T) {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"kind":"Status","message":"bad credentials: `+r.Header.Get("Authorization")+`"}`, http.StatusUnauthorized)
	}))
	defer api.Close()
	for _, tt := range []struct {
		name   string
		auth   kubeconfig.AuthConfig
		secret []string
	}{
		{"bearer", kubeconfig.AuthConfig{Token: "s3cr3t-token"}, []string{"s3cr3t-token"}},
		{"basic", kubeconfig.AuthConfig{Username: "jane", Password: "hunter22"}, []string{b64("jane:hunter22")}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tr := mustTransport(t, &kubeconfig.Config{Server: api.URL, Auth: tt.auth})
			status, body := get(t, tr, api.URL+"/api")
			if status != 401 || !strings.Contains(body, "[redacted]") {
				t.Fatalf("GET = %d %q, want a 401 with the credential masked", status, body)
			}
			for _, s := range tt.secret {
				if strings.Contains(body, s) {
					t.Fatalf("the body shows the secret %q: %q", s, body)
				}
			}
		})
	}
}
