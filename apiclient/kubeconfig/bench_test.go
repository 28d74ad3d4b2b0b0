package kubeconfig_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/kubewire/kubewire/apiclient/kubeconfig"
)

// Loading happens once per process; it is benchmarked to show it costs nothing worth
// caching, not because it is hot.
func BenchmarkParse_kind(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("testdata", "kubeconfigs", "kind.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for range b.N {
		if _, err := kubeconfig.Parse(data, "/k/config"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLoad_KUBECONFIG_of_three_files(b *testing.B) {
	dir := b.TempDir()
	list := writeFile(b, dir, "a", fileA) + string(os.PathListSeparator) +
		writeFile(b, dir, "b", fileB) + string(os.PathListSeparator) +
		writeFile(b, dir, "c", fileNoCurrent)
	opts := kubeconfig.Options{Getenv: env(map[string]string{"KUBECONFIG": list}), HomeDir: dir}
	b.ReportAllocs()
	for range b.N {
		if _, err := kubeconfig.Load(opts); err != nil {
			b.Fatal(err)
		}
	}
}

// The hot path: every request goes through the auth RoundTripper. Against a loopback
// server, "none" (no wrapper at all) is the baseline and the others show what
// authentication adds per request: a clone of the request and its headers, and a
// cache lookup for the token file and the exec credential.
func BenchmarkRoundTrip(b *testing.B) {
	rec := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("ok"))
	}))
	defer rec.Close()
	tokenFile := writeFile(b, b.TempDir(), "token", "file-token")
	p := newFakePlugin(b, pluginOpts{server: rec.URL, mode: "token"})
	execCfg := p.config(b, nil)

	for _, bb := range []struct {
		name string
		cfg  *kubeconfig.Config
	}{
		{"none", &kubeconfig.Config{Server: rec.URL}},
		{"token", &kubeconfig.Config{Server: rec.URL, Auth: kubeconfig.AuthConfig{Token: "tok"}}},
		{"token_file", &kubeconfig.Config{Server: rec.URL, Auth: kubeconfig.AuthConfig{TokenFile: tokenFile}}},
		{"token_and_impersonation", &kubeconfig.Config{Server: rec.URL, Auth: kubeconfig.AuthConfig{Token: "tok", Impersonate: "jane", ImpersonateGroups: []string{"devs"}}}},
		{"exec_cached", execCfg},
	} {
		b.Run(bb.name, func(b *testing.B) {
			tr := mustTransport(b, bb.cfg)
			req, _ := http.NewRequest("GET", rec.URL+"/api", nil)
			roundTrip := func() {
				resp, err := tr.RoundTrip(req)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			roundTrip() // connect (and run the plugin) outside the timing
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				roundTrip()
			}
		})
	}
}
