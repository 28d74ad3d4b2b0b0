package kubeconfig_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient/kubeconfig"
)

func TestParse_relative_paths_resolve_against_the_kubeconfig_directory(t *testing.T) {
	// A minikube-style layout: the kubeconfig next to its certificates, loaded from
	// another working directory.
	dir := t.TempDir()
	ca := newCA(t)
	cert, key := ca.issueClient(t, "minikube-user")
	writeFile(t, dir, "profiles/ca.crt", string(ca.PEM))
	writeFile(t, dir, "profiles/client.crt", string(cert))
	writeFile(t, dir, "profiles/client.key", string(key))
	writeFile(t, dir, "profiles/token", "file-token")
	path := writeFile(t, dir, "profiles/config", `
current-context: mk
clusters:
- name: mk
  cluster: {server: "https://192.168.49.2:8443", certificate-authority: ca.crt}
contexts:
- name: mk
  context: {cluster: mk, user: mk}
- name: tokenfile
  context: {cluster: mk, user: tokenfile}
- name: plugin
  context: {cluster: mk, user: plugin}
users:
- name: mk
  user: {client-certificate: client.crt, client-key: ./client.key}
- name: tokenfile
  user: {tokenFile: token}
- name: plugin
  user:
    exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: ./bin/login}
`)
	for _, tt := range []struct {
		context string
		check   func(*kubeconfig.Config) bool
	}{
		{"mk", func(c *kubeconfig.Config) bool {
			return string(c.TLS.CAData) == string(ca.PEM) && string(c.Auth.CertData) == string(cert) && string(c.Auth.KeyData) == string(key)
		}},
		{"tokenfile", func(c *kubeconfig.Config) bool { return c.Auth.TokenFile == filepath.Join(dir, "profiles/token") }},
		// A command with a slash is relative to the kubeconfig; v1beta1 defaults
		// interactiveMode to IfAvailable.
		{"plugin", func(c *kubeconfig.Config) bool {
			return c.Auth.Exec.Command == filepath.Join(dir, "profiles/bin/login") && c.Auth.Exec.InteractiveMode == "IfAvailable"
		}},
	} {
		t.Run(tt.context, func(t *testing.T) {
			cfg, err := load(t, kubeconfig.Options{Path: path, Context: tt.context})
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(cfg) {
				t.Fatalf("context %s: paths not resolved against %s: %v", tt.context, dir, cfg)
			}
		})
	}
}

func TestParse_reads_every_supported_field(t *testing.T) {
	dir := t.TempDir()
	ca := newCA(t)
	cfg := mustParse(t, dir, `
apiVersion: v1
kind: Config
preferences: {}
current-context: full
clusters:
- name: c
  cluster:
    server: https://api.example:443/k8s/clusters/c-1
    certificate-authority-data: `+b64(string(ca.PEM))+`
    tls-server-name: kubernetes.default.svc
    proxy-url: socks5://proxy.example:1080
    disable-compression: true
    extensions:
    - name: unrelated
      extension: {x: 1}
    - name: client.authentication.k8s.io/exec
      extension: {audience: api://c-1, scopes: [a, b]}
contexts:
- name: full
  context: {cluster: c, user: u, namespace: prod}
users:
- name: u
  user:
    as: jane
    as-uid: "1000"
    as-groups: [devs, ops]
    as-user-extra: {scopes: [view]}
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: aws
      args: [eks, get-token, --cluster-name, c-1]
      env:
      - {name: AWS_PROFILE, value: prod}
      installHint: install the aws CLI
      provideClusterInfo: true
      interactiveMode: Never
`)
	x := cfg.Auth.Exec
	checks := []struct {
		name      string
		got, want any
	}{
		{"Server", cfg.Server, "https://api.example:443/k8s/clusters/c-1"},
		{"Namespace", cfg.Namespace, "prod"},
		{"Cluster", cfg.Cluster, "c"},
		{"User", cfg.User, "u"},
		{"TLS.ServerName", cfg.TLS.ServerName, "kubernetes.default.svc"},
		{"TLS.CAData", string(cfg.TLS.CAData), string(ca.PEM)},
		{"Proxy", cfg.Proxy.String(), "socks5://proxy.example:1080"},
		{"DisableCompression", cfg.DisableCompression, true},
		{"Impersonate", cfg.Auth.Impersonate, "jane"},
		{"ImpersonateUID", cfg.Auth.ImpersonateUID, "1000"},
		{"ImpersonateGroups", strings.Join(cfg.Auth.ImpersonateGroups, ","), "devs,ops"},
		{"ImpersonateExtra", strings.Join(cfg.Auth.ImpersonateExtra["scopes"], ","), "view"},
		{"Exec.Command", x.Command, "aws"}, // no slash: left for PATH
		{"Exec.Args", strings.Join(x.Args, " "), "eks get-token --cluster-name c-1"},
		{"Exec.Env", x.Env["AWS_PROFILE"], "prod"},
		{"Exec.InstallHint", x.InstallHint, "install the aws CLI"},
		{"Exec.InteractiveMode", x.InteractiveMode, "Never"},
		{"Exec.ProvideClusterInfo", x.ProvideClusterInfo, true},
		{"Exec.ClusterExtension", string(x.ClusterExtension), `{"audience":"api://c-1","scopes":["a","b"]}`},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestParse_context_without_user_is_anonymous(t *testing.T) {
	cfg := mustParse(t, t.TempDir(), `
current-context: anon
clusters: [{name: c, cluster: {server: "https://h"}}]
contexts: [{name: anon, context: {cluster: c}}]
`)
	if got, want := cfg.Auth.String(), "none"; got != want {
		t.Fatalf("Auth = %q, want %q", got, want)
	}
}

func TestParse_broken_entries_nobody_uses_do_not_matter(t *testing.T) {
	cfg := mustParse(t, t.TempDir(), `
current-context: good
clusters:
- name: good
  cluster: {server: "https://good"}
- name: broken
  cluster: {server: [not, a, string], certificate-authority-data: "!!!"}
contexts:
- name: good
  context: {cluster: good}
users:
- name: broken
  user: {client-key-data: "%%%"}
`)
	if got, want := cfg.Server, "https://good"; got != want {
		t.Fatalf("Server = %q, want %q", got, want)
	}
}

func TestParse_empty_document_has_no_current_context(t *testing.T) {
	for _, doc := range []string{"", "---\n", "null\n", "{}\n"} {
		_, err := kubeconfig.Parse([]byte(doc), "/k/config")
		if got, want := kerror(t, err).Error(), "kubeconfig /k/config: no current-context is set; choose a context with --context"; got != want {
			t.Fatalf("Parse(%q): err = %q, want %q", doc, got, want)
		}
	}
}
