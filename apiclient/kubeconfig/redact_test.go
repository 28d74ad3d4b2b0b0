package kubeconfig_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient/kubeconfig"
)

// secretConfig holds a secret in every field that can hold one.
func secretConfig() kubeconfig.Config {
	proxy, _ := url.Parse("http://proxyuser:s3cr3t-proxy@proxy.example:3128")
	return kubeconfig.Config{
		Server: "https://h:6443", Namespace: "ns", Context: "ctx", Cluster: "c", User: "u", Source: "/k",
		Proxy: proxy,
		Auth: kubeconfig.AuthConfig{
			Token: "s3cr3t-token", Username: "admin", Password: "hunter2",
			CertData: []byte("-----BEGIN CERTIFICATE-----"), KeyData: []byte("-----BEGIN PRIVATE KEY----- s3cr3t-key"),
			Exec: &kubeconfig.ExecConfig{Command: "aws", Args: []string{"--secret", "s3cr3t-arg"}, Env: map[string]string{"TOKEN": "s3cr3t-env"}},
		},
	}
}

func TestConfig_never_prints_its_secrets(t *testing.T) {
	cfg := secretConfig()
	leaks := []string{"s3cr3t", "hunter2", "PRIVATE KEY"}
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("loaded", "cfg", cfg, "ptr", &cfg, "auth", cfg.Auth)
	var text bytes.Buffer
	slog.New(slog.NewTextHandler(&text, nil)).Info("loaded", "cfg", cfg, "auth", cfg.Auth)
	jsonCfg, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}

	outputs := map[string]string{
		"String":     cfg.String(),
		"GoString":   cfg.GoString(),
		"slog JSON":  logged.String(),
		"slog text":  text.String(),
		"json":       string(jsonCfg),
		"Auth %+v":   fmt.Sprintf("%+v", cfg.Auth),
		"Auth %#v":   fmt.Sprintf("%#v", cfg.Auth),
		"Exec %+v":   fmt.Sprintf("%+v", cfg.Auth.Exec),
		"*Exec %#v":  fmt.Sprintf("%#v", *cfg.Auth.Exec),
		"Sprint":     fmt.Sprint(cfg, &cfg),
		"Sprintln":   fmt.Sprintln(cfg),
		"in a slice": fmt.Sprintf("%v %+v", []kubeconfig.Config{cfg}, map[string]*kubeconfig.Config{"x": &cfg}),
	}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%t", "%10.3v"} {
		outputs["Config "+verb] = fmt.Sprintf(verb, cfg)
		outputs["*Config "+verb] = fmt.Sprintf(verb, &cfg)
	}
	for name, out := range outputs {
		for _, leak := range leaks {
			if strings.Contains(out, leak) {
				t.Errorf("%s leaks %q: %s", name, leak, out)
			}
		}
	}
	// Redacting must not mean saying nothing: the printout still helps.
	if got, want := cfg.String(), "Config{Server: https://h:6443, Namespace: ns, Context: ctx, Cluster: c, User: u, Source: /k, TLS: system roots, Auth: token+basic+client-certificate+exec aws, Proxy: http://proxyuser:xxxxx@proxy.example:3128}"; got != want {
		t.Errorf("String =\n %s\nwant\n %s", got, want)
	}
}

func TestConfig_String_names_the_kind_of_credential(t *testing.T) {
	for _, tt := range []struct {
		auth kubeconfig.AuthConfig
		tls  kubeconfig.TLSConfig
		want string
	}{
		{kubeconfig.AuthConfig{}, kubeconfig.TLSConfig{}, "TLS: system roots, Auth: none"},
		{kubeconfig.AuthConfig{TokenFile: "/t"}, kubeconfig.TLSConfig{CAData: []byte("x"), ServerName: "k"}, "TLS: certificate-authority (server name k), Auth: tokenFile /t"},
		{kubeconfig.AuthConfig{Token: "x", Impersonate: "jane"}, kubeconfig.TLSConfig{Insecure: true}, "TLS: insecure-skip-tls-verify, Auth: token+impersonate jane"},
	} {
		s := kubeconfig.Config{Auth: tt.auth, TLS: tt.tls}.String()
		if !strings.Contains(s, tt.want) {
			t.Errorf("String = %s, want it to contain %s", s, tt.want)
		}
	}
}
