package kubeconfig_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient/kubeconfig"
)

// Secrets planted in the broken kubeconfigs below; no error may repeat them.
var secrets = []string{"s3cr3t", "hunter2", "PRIVATE KEY", "leaked-stdout-secret"}

// withUser is a kubeconfig whose context "ctx" uses cluster "c" and user "admin", the
// user's body being user (indented YAML lines).
func withUser(user string) string {
	return `current-context: ctx
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:6443"}
contexts:
- name: ctx
  context: {cluster: c, user: admin}
users:
- name: admin
  user:
` + indent(user, "    ")
}

// withCluster is the same with cluster "c"'s body given and an anonymous user.
func withCluster(cluster string) string {
	return `current-context: ctx
clusters:
- name: c
  cluster:
` + indent(cluster, "    ") + `
contexts:
- name: ctx
  context: {cluster: c}
`
}

func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := range lines {
		lines[i] = prefix + strings.TrimSpace(lines[i])
	}
	return strings.Join(lines, "\n") + "\n"
}

func TestLoad_errors_name_file_entry_and_field_and_no_secret(t *testing.T) {
	ca := newCA(t)
	cert, key := ca.issueClient(t, "admin")
	_, otherKey := ca.issueClient(t, "someone-else")
	files := map[string]string{
		"ca.crt": string(ca.PEM), "client.crt": string(cert), "client.key": string(key),
		"empty-token": "\n", "not-pem": "hello", "token-file": "s3cr3t-from-file",
	}

	tests := []struct {
		name         string
		config       string // written to dir/config and loaded with Path
		context      string
		entry, field string // what the *Error must name
		reason       string // a substring of the message
	}{
		// The file as a whole.
		{name: "malformed_yaml", config: "clusters: [\n  - name: x\n token: s3cr3t", reason: "line"},
		{name: "top_level_is_a_list", config: "- a\n- b\n", reason: "want a mapping"},
		{name: "clusters_is_not_a_list", config: "clusters: {name: s3cr3t}\n", field: "clusters", reason: "want a list"},
		{name: "user_item_without_name", config: "users:\n- user: {token: s3cr3t}\n", field: "users", reason: "item 0: name: missing"},
		{name: "user_body_is_a_string", config: "users:\n- name: u\n  user: s3cr3t\n", field: "users", reason: `user "u": want a mapping, found a scalar`},
		{name: "current_context_is_a_mapping", config: "current-context: {s3cr3t: 1}\n", field: "current-context", reason: "want a string, found a mapping"},
		{name: "no_current_context", config: fileNoCurrent, reason: "no current-context"},

		// The context.
		{name: "context_not_found", config: fileA, context: "prod", entry: `context "prod"`, reason: "not found"},
		{name: "context_without_cluster", config: "current-context: x\ncontexts: [{name: x, context: {user: u}}]\n", entry: `context "x"`, field: "cluster", reason: "missing"},
		{name: "context_cluster_not_found", config: "current-context: x\ncontexts: [{name: x, context: {cluster: nope}}]\n", entry: `context "x"`, field: "cluster", reason: `no cluster named "nope"`},
		{name: "context_user_not_found", config: strings.Replace(withUser("token: s3cr3t"), "user: admin}", "user: nobody}", 1), entry: `context "ctx"`, field: "user", reason: `no user named "nobody"`},
		{name: "context_namespace_is_a_list", config: "current-context: x\ncontexts: [{name: x, context: {cluster: c, namespace: [a]}}]\n", entry: `context "x"`, field: "namespace", reason: "want a string, found a list"},

		// The cluster.
		{name: "server_missing", config: withCluster("insecure-skip-tls-verify: true"), entry: `cluster "c"`, field: "server", reason: "missing"},
		{name: "server_wrong_scheme", config: withCluster("server: ftp://h"), entry: `cluster "c"`, field: "server", reason: "want https://host[:port]"},
		{name: "server_not_a_url", config: withCluster(`server: "https://h:port"`), entry: `cluster "c"`, field: "server", reason: "not a valid URL"},
		{name: "server_with_password", config: withCluster("server: https://admin:hunter2@h"), entry: `cluster "c"`, field: "server", reason: "user info in the URL is not supported"},
		{name: "ca_data_bad_base64", config: withCluster("server: https://h\ncertificate-authority-data: abcd!efg"), entry: `cluster "c"`, field: "certificate-authority-data", reason: "illegal base64 data at input byte 4"},
		{name: "ca_data_not_pem", config: withCluster("server: https://h\ncertificate-authority-data: " + b64("hello")), entry: `cluster "c"`, field: "certificate-authority-data", reason: "no PEM certificate found"},
		{name: "ca_file_missing", config: withCluster("server: https://h\ncertificate-authority: missing.crt"), entry: `cluster "c"`, field: "certificate-authority", reason: "no such file"},
		{name: "ca_file_not_pem", config: withCluster("server: https://h\ncertificate-authority: not-pem"), entry: `cluster "c"`, field: "certificate-authority", reason: "no PEM certificate found"},
		{name: "ca_file_and_data", config: withCluster("server: https://h\ncertificate-authority: ca.crt\ncertificate-authority-data: " + b64(string(ca.PEM))), entry: `cluster "c"`, field: "certificate-authority-data", reason: "keep one"},
		{name: "insecure_with_ca", config: withCluster("server: https://h\ncertificate-authority: ca.crt\ninsecure-skip-tls-verify: true"), entry: `cluster "c"`, field: "insecure-skip-tls-verify", reason: "keep one"},
		{name: "insecure_not_a_bool", config: withCluster("server: https://h\ninsecure-skip-tls-verify: s3cr3t"), entry: `cluster "c"`, field: "insecure-skip-tls-verify", reason: "want true or false"},
		{name: "proxy_bad_scheme", config: withCluster("server: https://h\nproxy-url: ftp://p"), entry: `cluster "c"`, field: "proxy-url", reason: `scheme "ftp"`},

		// The user.
		{name: "key_data_bad_base64", config: withUser("client-certificate: client.crt\nclient-key-data: abcd!efg"), entry: `user "admin"`, field: "client-key-data", reason: "illegal base64 data at input byte 4"},
		{name: "cert_not_pem", config: withUser("client-certificate-data: " + b64("s3cr3t") + "\nclient-key: client.key"), entry: `user "admin"`, field: "client-certificate-data/client-key", reason: "tls:"},
		{name: "key_not_pem", config: withUser("client-certificate: client.crt\nclient-key: not-pem"), entry: `user "admin"`, field: "client-certificate/client-key", reason: "tls:"},
		{name: "key_does_not_match_cert", config: withUser("client-certificate: client.crt\nclient-key-data: " + b64(string(otherKey))), entry: `user "admin"`, field: "client-certificate/client-key-data", reason: "does not match"},
		{name: "cert_without_key", config: withUser("client-certificate: client.crt"), entry: `user "admin"`, field: "client-key", reason: "missing, but client-certificate is set"},
		{name: "key_without_cert", config: withUser("client-key-data: " + b64(string(key))), entry: `user "admin"`, field: "client-certificate", reason: "missing, but client-key-data is set"},
		{name: "cert_file_missing", config: withUser("client-certificate: gone.crt\nclient-key: client.key"), entry: `user "admin"`, field: "client-certificate", reason: "no such file"},
		{name: "cert_file_and_data", config: withUser("client-certificate: client.crt\nclient-certificate-data: " + b64(string(cert))), entry: `user "admin"`, field: "client-certificate-data", reason: "keep one"},
		{name: "token_and_basic_auth", config: withUser("token: s3cr3t\nusername: admin\npassword: hunter2"), entry: `user "admin"`, field: "username", reason: "keep one of token and basic auth"},
		{name: "token_and_token_file", config: withUser("token: s3cr3t\ntokenFile: token-file"), entry: `user "admin"`, field: "tokenFile", reason: "token is set too; keep one"},
		{name: "token_file_empty", config: withUser("tokenFile: empty-token"), entry: `user "admin"`, field: "tokenFile", reason: "empty token file"},
		{name: "token_file_missing", config: withUser("tokenFile: gone"), entry: `user "admin"`, field: "tokenFile", reason: "no such file"},
		{name: "token_file_is_a_directory", config: withUser("tokenFile: ."), entry: `user "admin"`, field: "tokenFile", reason: "not a regular file"},
		{name: "token_is_a_list", config: withUser("token: [s3cr3t]"), entry: `user "admin"`, field: "token", reason: "want a string, found a list"},
		{name: "token_spans_lines", config: withUser("token: \"s3cr3t\\nmore\""), entry: `user "admin"`, field: "token", reason: "spans several lines"},
		{name: "token_control_character", config: withUser("token: \"s3cr3t\\x00\""), entry: `user "admin"`, field: "token", reason: "holds a control character (byte 6)"},
		{name: "auth_provider", config: withUser("auth-provider: {name: gcp, config: {access-token: s3cr3t}}"), entry: `user "admin"`, field: "auth-provider", reason: "not supported; use an exec credential plugin"},
		{name: "exec_and_token", config: withUser("token: s3cr3t\nexec: {apiVersion: client.authentication.k8s.io/v1, command: x, interactiveMode: Never}"), entry: `user "admin"`, field: "exec", reason: "keep one way"},
		{name: "exec_without_api_version", config: withUser("exec: {command: x}"), entry: `user "admin"`, field: "exec", reason: "apiVersion: missing"},
		{name: "exec_v1alpha1", config: withUser("exec: {apiVersion: client.authentication.k8s.io/v1alpha1, command: x}"), entry: `user "admin"`, field: "exec", reason: "removed in Kubernetes 1.24"},
		{name: "exec_without_command", config: withUser("exec: {apiVersion: client.authentication.k8s.io/v1, interactiveMode: Never}"), entry: `user "admin"`, field: "exec", reason: "command: missing"},
		{name: "exec_v1_without_interactive_mode", config: withUser("exec: {apiVersion: client.authentication.k8s.io/v1, command: x}"), entry: `user "admin"`, field: "exec", reason: "interactiveMode: missing"},
		{name: "exec_bad_interactive_mode", config: withUser("exec: {apiVersion: client.authentication.k8s.io/v1, command: x, interactiveMode: Sometimes}"), entry: `user "admin"`, field: "exec", reason: "want Never, IfAvailable or Always"},
		{name: "exec_env_not_a_list", config: withUser("exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: x, env: {TOKEN: s3cr3t}}"), entry: `user "admin"`, field: "exec", reason: "env: want a list"},
		{name: "exec_env_item_without_name", config: withUser("exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: x, env: [{value: s3cr3t}]}"), entry: `user "admin"`, field: "exec", reason: "env: item 0: name: missing"},
		{name: "exec_is_a_list", config: withUser("exec: [s3cr3t]"), entry: `user "admin"`, field: "exec", reason: "want a mapping, found a list"},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range files {
				writeFile(t, dir, name, content)
			}
			path := writeFile(t, dir, "config", tt.config)
			cfg, err := load(t, kubeconfig.Options{Path: path, Context: tt.context})
			if err == nil {
				t.Fatalf("Load succeeded with %v, want an error", cfg)
			}
			checkError(t, err, path, tt.entry, tt.field, tt.reason)
		})
	}
}

func TestLoad_unreadable_kubeconfig_names_the_file(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name, path, reason string
	}{
		{"explicit_path_must_exist", filepath.Join(dir, "missing"), "open: no such file or directory"},
		{"explicit_path_is_a_directory", dir, "read: not a regular file (a directory)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, kubeconfig.Options{Path: tt.path})
			checkError(t, err, tt.path, "", "", tt.reason)
			if got, want := err.Error(), "kubeconfig "+tt.path+": "+tt.reason; got != want {
				t.Fatalf("err = %q, want %q", got, want)
			}
		})
	}
}

func TestLoad_error_line_is_exactly_as_documented(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "config", withUser("client-certificate-data: "+b64("x")+"\nclient-key-data: abcd!efg"))
	_, err := load(t, kubeconfig.Options{Path: path})
	want := `kubeconfig ` + path + `: user "admin": client-key-data: illegal base64 data at input byte 4`
	if got := err.Error(); got != want {
		t.Fatalf("err =\n %s\nwant\n %s", got, want)
	}
}

func TestLoad_in_cluster_errors(t *testing.T) {
	ca := newCA(t)
	for _, tt := range []struct {
		name   string
		files  map[string]string
		field  string
		reason string
	}{
		{"token_missing", map[string]string{"ca.crt": string(ca.PEM)}, "token", "no such file"},
		{"token_empty", map[string]string{"token": " \n", "ca.crt": string(ca.PEM)}, "token", "empty token file"},
		{"ca_missing", map[string]string{"token": "s3cr3t"}, "ca.crt", "no such file"},
		{"ca_not_pem", map[string]string{"token": "s3cr3t", "ca.crt": "s3cr3t"}, "ca.crt", "no PEM certificate"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tt.files {
				writeFile(t, dir, name, content)
			}
			_, err := load(t, kubeconfig.Options{
				Getenv:            env(map[string]string{"KUBERNETES_SERVICE_HOST": "10.0.0.1", "KUBERNETES_SERVICE_PORT": "443"}),
				ServiceAccountDir: dir,
			})
			// The pod is there and its mount is broken: that is an error, not "no config".
			checkError(t, err, "in-cluster", "", tt.field, tt.reason)
		})
	}
}

// checkError asserts err is one line naming source, entry and field, with reason in
// it and none of the planted secrets.
func checkError(t *testing.T, err error, source, entry, field, reason string) {
	t.Helper()
	checkErr(t, err, source, entry, field, reason, "kubeconfig "+source)
}

// checkSendError is checkError for an error made while sending a request (an
// exec plugin's run): Source is the file, but the message, which reaches logs
// and the live page, names only the entry and field (issue 29).
func checkSendError(t *testing.T, err error, source, entry, field, reason string) {
	t.Helper()
	checkErr(t, err, source, entry, field, reason, "kubeconfig: "+entry)
	if strings.Contains(err.Error(), source) {
		t.Errorf("message %q holds the kubeconfig's path", err)
	}
}

func checkErr(t *testing.T, err error, source, entry, field, reason, prefix string) {
	t.Helper()
	kerr := kerror(t, err)
	if got, want := kerr.Source, source; got != want {
		t.Errorf("Source = %q, want %q", got, want)
	}
	if got, want := kerr.Entry, entry; got != want {
		t.Errorf("Entry = %q, want %q", got, want)
	}
	if got, want := kerr.Field, field; got != want {
		t.Errorf("Field = %q, want %q", got, want)
	}
	// err may wrap kerr (http.Client adds `Get "url": `); both must be clean.
	line, msg := kerr.Error(), err.Error()
	t.Log(msg)
	if !strings.Contains(line, reason) {
		t.Errorf("message %q does not say %q", line, reason)
	}
	if !strings.HasPrefix(line, prefix) {
		t.Errorf("message %q does not start with %q", line, prefix)
	}
	if strings.ContainsAny(msg, "\r\n") {
		t.Errorf("message %q is not one line", msg)
	}
	for _, s := range secrets {
		if strings.Contains(msg, s) {
			t.Errorf("message %q leaks %q", msg, s)
		}
	}
}
