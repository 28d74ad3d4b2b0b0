package kubeconfig_test

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient/kubeconfig"
)

var update = flag.Bool("update", false, "rewrite testdata/fuzz/FuzzLoad from testdata/kubeconfigs")

// The kubeconfigs in testdata/kubeconfigs are the kinds people have: what kind,
// minikube, EKS and GKE write, a CI token, and broken ones. Each must load to the
// right thing or fail with the right line; they also seed FuzzLoad.
func TestParse_real_world_kubeconfigs(t *testing.T) {
	tests := []struct {
		file    string
		want    string // a piece of cfg.String(), or of the error
		wantErr bool
	}{
		{"kind.yaml", "Server: https://127.0.0.1:40213, Namespace: default, Context: kind-kind, Cluster: kind-kind, User: kind-kind", false},
		{"kind.yaml", "TLS: certificate-authority, Auth: client-certificate", false},
		{"minikube-files.yaml", "Server: https://192.168.49.2:8443, Namespace: default, Context: minikube", false},
		{"minikube-files.yaml", "Auth: client-certificate", false},
		{"eks-exec.yaml", "Namespace: checkout, Context: arn:aws:eks:eu-west-1:123456789012:cluster/shop", false},
		{"eks-exec.yaml", "Auth: exec aws", false},
		{"gke-exec.yaml", "Server: https://34.78.12.201", false},
		{"gke-exec.yaml", "Auth: exec gke-gcloud-auth-plugin", false},
		{"token.yaml", "Server: https://api.staging.example.com:6443/k8s/clusters/c-m-4x7, Namespace: ci", false},
		{"token.yaml", "TLS: insecure-skip-tls-verify (server name kubernetes.default.svc), Auth: token, Proxy: http://proxy.corp.example:3128, DisableCompression", false},
		{"anchors.yaml", "Server: https://dev.example:6443, Namespace: team-a, Context: dev, Cluster: dev-copy", false},
		{"anchors.yaml", "TLS: insecure-skip-tls-verify, Auth: basic", false},
		{"broken-base64.yaml", `user "kind-kind": client-key-data: illegal base64 data at input byte 4`, true},
		{"broken-auth-provider.yaml", `user "gke_old": auth-provider: not supported`, true},
		{"broken-tabs.yaml", "broken-tabs.yaml: line 6: found character that cannot start any token", true},
		{"broken-truncated.yaml", "broken-truncated.yaml: clusters: item 0: name: missing", true},
		{"broken-missing-user.yaml", `context "orphan": user: no user named "deleted-user"`, true},
		{"broken-exec-v1alpha1.yaml", `user "old": exec: apiVersion: v1alpha1 was removed`, true},
	}
	for _, tt := range tests {
		t.Run(strings.TrimSuffix(tt.file, ".yaml"), func(t *testing.T) {
			path := filepath.Join("testdata", "kubeconfigs", tt.file)
			cfg, err := load(t, kubeconfig.Options{Path: path})
			if tt.wantErr {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("Load(%s): err = %v, want one saying %q", tt.file, err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatalf("Load(%s): %v", tt.file, err)
			}
			if !strings.Contains(cfg.String(), tt.want) {
				t.Fatalf("Load(%s) = %s\nwant it to contain %s", tt.file, cfg, tt.want)
			}
			if _, err := cfg.Transport(); err != nil {
				t.Fatalf("Transport: %v", err)
			}
		})
	}
}

// The seed corpus is testdata/kubeconfigs in the go fuzz file format; this test keeps
// the two in step (go test -run FuzzCorpus -update rewrites the corpus).
func TestFuzzCorpus_is_in_step_with_testdata_kubeconfigs(t *testing.T) {
	sources, err := filepath.Glob(filepath.Join("testdata", "kubeconfigs", "*.yaml"))
	if err != nil || len(sources) == 0 {
		t.Fatalf("no kubeconfigs in testdata: %v", err)
	}
	for _, src := range sources {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", data)
		seed := filepath.Join("testdata", "fuzz", "FuzzLoad", strings.TrimSuffix(filepath.Base(src), ".yaml"))
		if *update {
			writeFile(t, ".", seed, want)
			continue
		}
		got, err := os.ReadFile(seed)
		if err != nil || string(got) != want {
			t.Errorf("%s is not in step with %s; run go test -run FuzzCorpus -update", seed, src)
		}
	}
}

// FuzzLoad feeds arbitrary bytes to the kubeconfig parser. Whatever the input, Parse
// and Transport must not panic, an error must be one *Error line, and a Config must
// be complete and print the same whatever its secrets are.
//
//	go test -run '^$' -fuzz FuzzLoad -fuzztime 1m ./apiclient/kubeconfig/
func FuzzLoad(f *testing.F) {
	// The seeds are read from testdata/fuzz/FuzzLoad. They are parsed as if they sat
	// in testdata/kubeconfigs, so that minikube's relative certificate paths resolve.
	source, err := filepath.Abs(filepath.Join("testdata", "kubeconfigs", "config"))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := kubeconfig.Parse(data, source)
		if err != nil {
			var kerr *kubeconfig.Error
			if !errors.As(err, &kerr) {
				t.Fatalf("error %q is a %T, want a *kubeconfig.Error", err, err)
			}
			if strings.ContainsAny(err.Error(), "\r\n") {
				t.Fatalf("error %q spans several lines", err)
			}
			return
		}
		if cfg.Server == "" || cfg.Namespace == "" || cfg.Context == "" || cfg.Source != source {
			t.Fatalf("incomplete Config: %v", cfg)
		}
		other := *cfg
		other.Auth.Token, other.Auth.Password, other.Auth.KeyData = swap(cfg.Auth.Token), swap(cfg.Auth.Password), []byte(swap(string(cfg.Auth.KeyData)))
		if cfg.String() != other.String() {
			t.Fatalf("String depends on secret values:\n%s\n%s", cfg, &other)
		}
		_, _ = cfg.Transport() // may refuse (plain http and a token), must not panic
	})
}

// swap replaces a non-empty secret by another one.
func swap(s string) string {
	if s == "" {
		return ""
	}
	return "other-" + s
}
