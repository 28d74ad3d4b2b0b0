package kubeconfig_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient/kubeconfig"
)

func TestExec_credential_without_expiry_is_cached_until_a_401(t *testing.T) {
	rec := newRecorder(t)
	p := newFakePlugin(t, pluginOpts{server: rec.URL, mode: "token"})
	tr := mustTransport(t, p.config(t, nil))
	for range 3 {
		if status, _ := get(t, tr, rec.URL); status != 200 {
			t.Fatalf("status = %d", status)
		}
	}
	if got, want := p.count(t), 1; got != want {
		t.Fatalf("plugin ran %d times for 3 requests, want %d", got, want)
	}
	if got, want := strings.Join(rec.authorizations(), ","), "Bearer token-1,Bearer token-1,Bearer token-1"; got != want {
		t.Fatalf("Authorization headers = %s, want %s", got, want)
	}
}

func TestExec_credential_is_cached_until_its_expirationTimestamp(t *testing.T) {
	rec := newRecorder(t)
	clock := newClock()
	expiry := clock.Now().Add(time.Hour).Format(time.RFC3339)
	p := newFakePlugin(t, pluginOpts{server: rec.URL, mode: "expiring", env: map[string]string{"FAKE_PLUGIN_EXPIRY": expiry}})
	tr := mustTransport(t, p.config(t, clock))

	steps := []struct {
		advance  time.Duration
		wantRuns int
		wantAuth string
	}{
		{0, 1, "Bearer token-1"},
		{59 * time.Minute, 1, "Bearer token-1"}, // a minute before expiry: cached
		{time.Minute, 2, "Bearer token-2"},      // at expiry: run again
		{0, 3, "Bearer token-3"},                // the plugin gave the same, past, expiry: not trusted
	}
	for i, s := range steps {
		clock.Advance(s.advance)
		get(t, tr, rec.URL)
		if got := p.count(t); got != s.wantRuns {
			t.Fatalf("step %d: plugin ran %d times, want %d", i, got, s.wantRuns)
		}
		if got := rec.last().Header.Get("Authorization"); got != s.wantAuth {
			t.Fatalf("step %d: Authorization = %q, want %q", i, got, s.wantAuth)
		}
	}
}

func TestExec_401_runs_the_plugin_again_and_retries_once(t *testing.T) {
	t.Run("GET", func(t *testing.T) {
		rec := newRecorder(t, "token-1") // the first credential has been revoked
		p := newFakePlugin(t, pluginOpts{server: rec.URL, mode: "token"})
		tr := mustTransport(t, p.config(t, nil))
		if status, _ := get(t, tr, rec.URL); status != 200 {
			t.Fatalf("status = %d, want 200 after the retry", status)
		}
		if got, want := p.count(t), 2; got != want {
			t.Fatalf("plugin ran %d times, want %d", got, want)
		}
		if got, want := strings.Join(rec.authorizations(), ","), "Bearer token-1,Bearer token-2"; got != want {
			t.Fatalf("Authorization headers = %s, want %s", got, want)
		}
	})

	t.Run("POST_with_a_replayable_body_sends_it_twice", func(t *testing.T) {
		rec := newRecorder(t, "token-1")
		p := newFakePlugin(t, pluginOpts{server: rec.URL, mode: "token"})
		tr := mustTransport(t, p.config(t, nil))
		req, _ := http.NewRequest("POST", rec.URL, bytes.NewReader([]byte(`{"kind":"Pod"}`))) // sets GetBody
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got, want := resp.StatusCode, 200; got != want {
			t.Fatalf("status = %d, want %d", got, want)
		}
		if got, want := strings.Join(rec.bodies, "|"), `{"kind":"Pod"}|{"kind":"Pod"}`; got != want {
			t.Fatalf("server got bodies %s, want %s", got, want)
		}
	})

	t.Run("a_body_that_cannot_be_replayed_gets_the_401_and_the_next_request_a_new_credential", func(t *testing.T) {
		rec := newRecorder(t, "token-1")
		p := newFakePlugin(t, pluginOpts{server: rec.URL, mode: "token"})
		tr := mustTransport(t, p.config(t, nil))
		req, _ := http.NewRequest("POST", rec.URL, io.NopCloser(strings.NewReader("once")))
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got, want := resp.StatusCode, 401; got != want {
			t.Fatalf("status = %d, want %d", got, want)
		}
		if got, want := p.count(t), 1; got != want {
			t.Fatalf("plugin ran %d times, want %d", got, want)
		}
		if status, _ := get(t, tr, rec.URL); status != 200 {
			t.Fatalf("next request: status = %d, want 200", status)
		}
		if got, want := p.count(t), 2; got != want {
			t.Fatalf("plugin ran %d times, want %d", got, want)
		}
	})

	t.Run("a_second_401_is_returned_not_retried", func(t *testing.T) {
		rec := newRecorder(t, "token-1", "token-2")
		p := newFakePlugin(t, pluginOpts{server: rec.URL, mode: "token"})
		tr := mustTransport(t, p.config(t, nil))
		if status, _ := get(t, tr, rec.URL); status != 401 {
			t.Fatalf("status = %d, want 401", status)
		}
		if got, want := len(rec.authorizations()), 2; got != want {
			t.Fatalf("server got %d requests, want %d", got, want)
		}
	})
}

func TestExec_concurrent_requests_share_one_plugin_run(t *testing.T) {
	rec := newRecorder(t)
	p := newFakePlugin(t, pluginOpts{server: rec.URL, mode: "token"})
	tr := mustTransport(t, p.config(t, nil))
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := (&http.Client{Transport: tr}).Get(rec.URL)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
		}()
	}
	wg.Wait()
	if got, want := p.count(t), 1; got != want {
		t.Fatalf("plugin ran %d times for 8 concurrent requests, want %d", got, want)
	}
}

func TestExec_plugin_receives_args_env_and_exec_info(t *testing.T) {
	rec := newRecorder(t)
	restore := kubeconfig.SetStdin(nil) // not a terminal, whatever started go test
	defer restore()
	for _, tt := range []struct {
		name, apiVersion, extra string
		wantCluster             bool
	}{
		{"v1_with_cluster_info", kubeconfig.ExecAPIv1, "interactiveMode: Never, provideClusterInfo: true", true},
		{"v1beta1_without_cluster_info", kubeconfig.ExecAPIv1beta1, "interactiveMode: IfAvailable", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ca := newCA(t).PEM
			// A CA on a plain-http server is odd but harmless; it lets us check the CA
			// travels to the plugin.
			p := newFakePlugin(t, pluginOpts{server: rec.URL, caPEM: ca, apiVersion: tt.apiVersion, mode: "token", extra: tt.extra})
			get(t, mustTransport(t, p.config(t, nil)), rec.URL)

			data, err := os.ReadFile(p.seen)
			if err != nil {
				t.Fatal(err)
			}
			var seen pluginSeen
			var info struct {
				APIVersion, Kind string
				Spec             struct {
					Interactive bool
					Cluster     *struct {
						Server string
						CAData []byte          `json:"certificate-authority-data"`
						Config json.RawMessage `json:"config"`
					}
				}
			}
			if err := json.Unmarshal(data, &seen); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(seen.Info, &info); err != nil {
				t.Fatal(err)
			}
			if got, want := strings.Join(seen.Args, " "), "--flag value"; got != want {
				t.Errorf("args = %q, want %q", got, want)
			}
			if info.APIVersion != tt.apiVersion || info.Kind != "ExecCredential" {
				t.Errorf("exec info is %s %s, want %s ExecCredential", info.APIVersion, info.Kind, tt.apiVersion)
			}
			// Never, or IfAvailable without a terminal: not interactive.
			if info.Spec.Interactive {
				t.Errorf("spec.interactive = true, want false")
			}
			if got := info.Spec.Cluster != nil; got != tt.wantCluster {
				t.Fatalf("spec.cluster present = %v, want %v (%s)", got, tt.wantCluster, seen.Info)
			}
			if tt.wantCluster {
				c := info.Spec.Cluster
				if c.Server != rec.URL || string(c.CAData) != string(ca) || string(c.Config) != `{"audience":"test"}` {
					t.Errorf("spec.cluster = %s, want the server, its CA and the exec extension", seen.Info)
				}
			}
		})
	}
}

func TestExec_client_certificate_from_the_plugin(t *testing.T) {
	ca := newCA(t)
	ts := clientCertServer(t, ca)
	cert, key := ca.issueClient(t, "plugin-user")
	dir := t.TempDir()
	p := newFakePlugin(t, pluginOpts{server: ts.URL, caPEM: serverCAPEM(ts), mode: "cert", env: map[string]string{
		"FAKE_PLUGIN_CERT": writeFile(t, dir, "c.crt", string(cert)),
		"FAKE_PLUGIN_KEY":  writeFile(t, dir, "c.key", string(key)),
	}})
	tr := mustTransport(t, p.config(t, nil))
	for range 2 {
		status, body := get(t, tr, ts.URL)
		if status != 200 || body != "plugin-user" {
			t.Fatalf("GET = %d %q, want 200 from client plugin-user", status, body)
		}
	}
	if got, want := p.count(t), 1; got != want {
		t.Fatalf("plugin ran %d times, want %d", got, want)
	}
}

func TestExec_failures_are_one_clear_line_without_stdout(t *testing.T) {
	rec := newRecorder(t)
	tests := []struct {
		name, mode, extra string
		reason            string
	}{
		{"non_zero_exit", "failing", "", "failed (exit status 3); what it printed on standard error went to ours"},
		{"silent_plugin", "silent", "", "printed nothing on stdout"},
		{"not_json", "badjson", "", "output is not JSON (syntax error at byte"},
		{"no_status", "nostatus", "", "output has no status"},
		{"neither_token_nor_certificate", "emptystatus", "", "status has neither a token nor clientCertificateData"},
		{"another_api_version", "wrongversion", "", "apiVersion differs from the configured client.authentication.k8s.io/v1"},
		{"interactive_always_without_a_terminal", "token", "interactiveMode: Always", "interactiveMode is Always but standard input is not a terminal"},
	}
	restore := kubeconfig.SetStdin(nil) // no terminal, whatever started go test
	defer restore()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newFakePlugin(t, pluginOpts{server: rec.URL, mode: tt.mode, extra: tt.extra})
			cfg := p.config(t, nil)
			var stderr strings.Builder
			cfg.Stderr = &stderr
			_, err := (&http.Client{Transport: mustTransport(t, cfg)}).Get(rec.URL)
			checkSendError(t, err, p.path, `user "plugin"`, "exec", tt.reason)
			// Its stderr may hold a refresh token (issue 29): it goes to ours
			// as it comes, and into no message.
			if tt.mode == "failing" && (!strings.Contains(stderr.String(), "account locked") || strings.Contains(err.Error(), "account locked")) {
				t.Errorf("the plugin's stderr %q: want it on Config.Stderr and not in the message %q", stderr.String(), err)
			}
		})
	}

	t.Run("command_not_found_shows_the_install_hint", func(t *testing.T) {
		path := writeFile(t, t.TempDir(), "config", strings.Replace(withUser(`exec: {apiVersion: client.authentication.k8s.io/v1, command: kubewire-no-such-plugin,
  interactiveMode: Never, installHint: "Install it with\n  brew install kubewire-no-such-plugin\n"}`), "https://127.0.0.1:6443", rec.URL, 1))
		cfg, err := load(t, kubeconfig.Options{Path: path})
		if err != nil {
			t.Fatal(err)
		}
		_, err = (&http.Client{Transport: mustTransport(t, cfg)}).Get(rec.URL)
		checkSendError(t, err, path, `user "admin"`, "exec",
			`plugin "kubewire-no-such-plugin" not found; Install it with brew install kubewire-no-such-plugin`)
	})
}
