package kubeconfig_test

import (
	"io"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/kubewire/kubewire/apiclient/kubeconfig"
	"github.com/kubewire/kubewire/apiclient/realtest"
)

// TestIntegration_each_kind_of_user_reaches_a_real_API_server loads the kubeconfigs
// that .ci/cluster/up.sh writes (a bearer token, a client certificate) and one
// derived from them whose user is an exec plugin (this test binary), and does a GET of
// the default namespace with each. The last exec case starts with a token the server
// does not know, to see 401 → run the plugin again → retry, against the real thing.
//
//	KUBEWIRE_TEST_KUBECONFIG=/tmp/kw-cluster/kubeconfig go test -race -run Integration ./apiclient/kubeconfig/
func TestIntegration_each_kind_of_user_reaches_a_real_API_server(t *testing.T) {
	path := realtest.Path(t)
	tokenCfg, err := load(t, kubeconfig.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	if tokenCfg.Auth.Token == "" {
		t.Fatalf("%s: want a token user to derive the exec kubeconfig from, got %v", path, tokenCfg)
	}

	type integrationCase struct {
		name, path string
		plugin     *fakePluginSetup // nil: no exec plugin
		runs       int              // how many times the plugin must have run
	}
	cases := []integrationCase{
		{name: "token", path: path},
		{name: "client_certificate", path: filepath.Join(filepath.Dir(path), "kubeconfig-cert")},
	}
	for _, first := range []string{"", "revoked-token"} {
		p := newFakePlugin(t, pluginOpts{
			server: tokenCfg.Server, caPEM: tokenCfg.TLS.CAData, mode: "token",
			env: map[string]string{"FAKE_PLUGIN_TOKEN": tokenCfg.Auth.Token, "FAKE_PLUGIN_FIRST_TOKEN": first},
		})
		name, runs := "exec_plugin", 1
		if first != "" {
			name, runs = "exec_plugin_after_a_401", 2
		}
		cases = append(cases, integrationCase{name, p.path, p, runs})
	}

	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := load(t, kubeconfig.Options{Path: tt.path})
			if err != nil {
				t.Fatal(err)
			}
			resp, err := (&http.Client{Transport: mustTransport(t, cfg)}).Get(cfg.Server + "/api/v1/namespaces/default")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatalf("GET /api/v1/namespaces/default as %s: %d %s", cfg.Auth, resp.StatusCode, body)
			}
			// A custom tls.Config turns HTTP/2 off unless ForceAttemptHTTP2 is set; the
			// API server speaks it, and watches multiplex on it.
			if got, want := resp.ProtoMajor, 2; got != want {
				t.Fatalf("protocol = %s, want HTTP/2", resp.Proto)
			}
			if tt.plugin != nil {
				if got := tt.plugin.count(t); got != tt.runs {
					t.Fatalf("plugin ran %d times, want %d", got, tt.runs)
				}
			}
		})
	}
}
