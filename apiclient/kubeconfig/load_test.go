package kubeconfig_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient/kubeconfig"
)

// Two kubeconfigs that disagree on purpose: both define cluster "shared", user "u"
// and context "both", with different contents, so a test can tell which file won.
const (
	fileA = `
current-context: ctx-a
clusters:
- name: shared
  cluster:
    server: https://a.example:6443
- name: only-a
  cluster:
    server: https://only-a.example
contexts:
- name: ctx-a
  context: {cluster: shared, user: u, namespace: team-a}
- name: both
  context: {cluster: only-a}
users:
- name: u
  user: {token: token-a}
`
	fileB = `
current-context: ctx-b
clusters:
- name: shared
  cluster:
    server: https://b.example:6443
    insecure-skip-tls-verify: true
- name: only-b
  cluster:
    server: https://only-b.example
contexts:
- name: ctx-b
  context: {cluster: only-b, user: u}
- name: both
  context: {cluster: only-b, namespace: from-b}
- name: b-uses-shared
  context: {cluster: shared, user: u}
users:
- name: u
  user: {username: user-b, password: pass-b}
`
	// fileNoCurrent has entries but no current-context.
	fileNoCurrent = `
clusters:
- name: c
  cluster: {server: https://c.example}
contexts:
- name: ctx-c
  context: {cluster: c}
`
)

func TestLoad_resolution(t *testing.T) {
	type want struct {
		server, namespace, context, source string // source relative to the test dir
		token, username                    string
		insecure                           bool
	}
	tests := []struct {
		name    string
		files   map[string]string // relative to the test dir
		opts    kubeconfig.Options
		env     map[string]string // $DIR is replaced by the test dir
		sa      bool              // write an in-cluster service account
		want    want
		wantErr error
	}{{
		name:  "explicit_path_is_used_alone_even_with_KUBECONFIG_set",
		files: map[string]string{"a": fileA, "b": fileB},
		opts:  kubeconfig.Options{Path: "b"},
		env:   map[string]string{"KUBECONFIG": "$DIR/a"},
		want:  want{server: "https://only-b.example", namespace: "default", context: "ctx-b", source: "b", username: "user-b"},
	}, {
		name:  "KUBECONFIG_first_file_sets_current_context",
		files: map[string]string{"a": fileA, "b": fileB},
		env:   map[string]string{"KUBECONFIG": "$DIR/a:$DIR/b"},
		want:  want{server: "https://a.example:6443", namespace: "team-a", context: "ctx-a", source: "a", token: "token-a"},
	}, {
		name:  "KUBECONFIG_skips_missing_files",
		files: map[string]string{"b": fileB},
		env:   map[string]string{"KUBECONFIG": "$DIR/missing::$DIR/b:"},
		want:  want{server: "https://only-b.example", namespace: "default", context: "ctx-b", source: "b", username: "user-b"},
	}, {
		name:  "first_non_empty_current_context_wins",
		files: map[string]string{"c": fileNoCurrent, "b": fileB, "a": fileA},
		env:   map[string]string{"KUBECONFIG": "$DIR/c:$DIR/b:$DIR/a"},
		want:  want{server: "https://only-b.example", namespace: "default", context: "ctx-b", source: "b", username: "user-b"},
	}, {
		name:  "first_file_wins_whole_cluster_and_user_entries",
		files: map[string]string{"a": fileA, "b": fileB},
		env:   map[string]string{"KUBECONFIG": "$DIR/a:$DIR/b"},
		opts:  kubeconfig.Options{Context: "b-uses-shared"},
		// b's context, but a's cluster "shared" (server a, and not b's insecure flag:
		// fields are never mixed) and a's user "u" (a token, not b's basic auth).
		want: want{server: "https://a.example:6443", namespace: "default", context: "b-uses-shared", source: "b", token: "token-a"},
	}, {
		name:  "first_file_wins_contexts_too",
		files: map[string]string{"a": fileA, "b": fileB},
		env:   map[string]string{"KUBECONFIG": "$DIR/b:$DIR/a"},
		opts:  kubeconfig.Options{Context: "both"},
		want:  want{server: "https://only-b.example", namespace: "from-b", context: "both", source: "b"},
	}, {
		name:  "later_file_wins_what_the_first_lacks",
		files: map[string]string{"a": fileA, "b": fileB},
		env:   map[string]string{"KUBECONFIG": "$DIR/b:$DIR/a"},
		opts:  kubeconfig.Options{Context: "ctx-a"},
		// ctx-a exists only in a; it points at "shared" and "u", which b defined first.
		want: want{server: "https://b.example:6443", namespace: "team-a", context: "ctx-a", source: "a", username: "user-b", insecure: true},
	}, {
		name:  "context_option_overrides_current_context",
		files: map[string]string{"a": fileA, "b": fileB},
		env:   map[string]string{"KUBECONFIG": "$DIR/a:$DIR/b"},
		opts:  kubeconfig.Options{Context: "ctx-b"},
		want:  want{server: "https://only-b.example", namespace: "default", context: "ctx-b", source: "b", token: "token-a"},
	}, {
		name:  "home_kube_config_when_KUBECONFIG_unset",
		files: map[string]string{"home/.kube/config": fileA},
		env:   map[string]string{"HOME": "$DIR/home"},
		want:  want{server: "https://a.example:6443", namespace: "team-a", context: "ctx-a", source: "home/.kube/config", token: "token-a"},
	}, {
		name:  "KUBECONFIG_replaces_home_config",
		files: map[string]string{"home/.kube/config": fileA, "b": fileB},
		env:   map[string]string{"HOME": "$DIR/home", "KUBECONFIG": "$DIR/b"},
		want:  want{server: "https://only-b.example", namespace: "default", context: "ctx-b", source: "b", username: "user-b"},
	}, {
		name:  "KUBECONFIG_of_missing_files_falls_to_in_cluster_not_home",
		files: map[string]string{"home/.kube/config": fileA},
		env: map[string]string{"HOME": "$DIR/home", "KUBECONFIG": "$DIR/missing",
			"KUBERNETES_SERVICE_HOST": "10.96.0.1", "KUBERNETES_SERVICE_PORT": "443"},
		sa:   true,
		want: want{server: "https://10.96.0.1:443", namespace: "kube-system", source: "in-cluster"},
	}, {
		name:  "in_cluster_IPv6_service_address_is_bracketed",
		files: map[string]string{},
		env:   map[string]string{"KUBERNETES_SERVICE_HOST": "fd00::1", "KUBERNETES_SERVICE_PORT": "6443"},
		sa:    true,
		want:  want{server: "https://[fd00::1]:6443", namespace: "kube-system", source: "in-cluster"},
	}, {
		name:    "in_cluster_needs_host_and_port",
		env:     map[string]string{"KUBERNETES_SERVICE_HOST": "10.96.0.1"},
		sa:      true,
		wantErr: kubeconfig.ErrNoConfig,
	}, {
		name:    "nothing_anywhere_is_ErrNoConfig",
		env:     map[string]string{"HOME": "$DIR/home"},
		wantErr: kubeconfig.ErrNoConfig,
	}, {
		name:    "context_asked_with_nothing_anywhere_is_still_ErrNoConfig",
		opts:    kubeconfig.Options{Context: "prod"},
		wantErr: kubeconfig.ErrNoConfig,
	}}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tt.files {
				writeFile(t, dir, name, content)
			}
			vars := map[string]string{}
			for k, v := range tt.env {
				vars[k] = strings.ReplaceAll(strings.ReplaceAll(v, "$DIR", dir), ":", string(os.PathListSeparator))
			}
			opts := tt.opts
			opts.Getenv = env(vars)
			opts.HomeDir = vars["HOME"] // "" → from Getenv, i.e. none
			if opts.HomeDir == "" {
				opts.HomeDir = filepath.Join(dir, "no-home")
			}
			if opts.Path != "" {
				opts.Path = filepath.Join(dir, opts.Path)
			}
			opts.ServiceAccountDir = filepath.Join(dir, "sa")
			if tt.sa {
				writeFile(t, dir, "sa/token", "sa-token\n")
				writeFile(t, dir, "sa/ca.crt", string(newCA(t).PEM))
				writeFile(t, dir, "sa/namespace", "kube-system")
			}

			cfg, err := kubeconfig.Load(opts)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Load: err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			source := tt.want.source
			if source != "in-cluster" {
				source = filepath.Join(dir, source)
			}
			got := want{cfg.Server, cfg.Namespace, cfg.Context, cfg.Source, cfg.Auth.Token, cfg.Auth.Username, cfg.TLS.Insecure}
			w := tt.want
			w.source = source
			if got != w {
				t.Fatalf("Load:\n got %+v\nwant %+v", got, w)
			}
		})
	}
}

func TestLoad_in_cluster_rereads_the_token_file(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "token", "sa-token\n")
	writeFile(t, dir, "ca.crt", string(newCA(t).PEM))
	cfg, err := load(t, kubeconfig.Options{
		Getenv:            env(map[string]string{"KUBERNETES_SERVICE_HOST": "10.0.0.1", "KUBERNETES_SERVICE_PORT": "443"}),
		ServiceAccountDir: dir,
	})
	if err != nil {
		t.Fatal(err)
	}
	// The token is referenced, not copied, so the kubelet's rotation reaches us; with
	// no namespace file the namespace is "default".
	if got, want := cfg.Auth.TokenFile, filepath.Join(dir, "token"); got != want {
		t.Fatalf("TokenFile = %q, want %q", got, want)
	}
	if got, want := cfg.Auth.Token, ""; got != want {
		t.Fatalf("Token = %q, want %q", got, want)
	}
	if got, want := cfg.Namespace, "default"; got != want {
		t.Fatalf("Namespace = %q, want %q", got, want)
	}
}
