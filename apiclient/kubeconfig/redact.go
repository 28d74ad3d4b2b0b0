package kubeconfig

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
)

// A Config is printed, logged and debugged without its secrets. String says which
// kind of credential there is, never its value; Format makes every fmt verb (%v, %+v,
// %#v, %s, %d, %x, ...) print that same text, so no verb falls back to printing the
// fields; LogValue does the same for log/slog.

// String describes c on one line: where, as whom, by which means.
func (c Config) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Config{Server: %s, Namespace: %s, Context: %s, Cluster: %s, User: %s, Source: %s, TLS: %s, Auth: %s",
		c.Server, c.Namespace, c.Context, c.Cluster, c.User, c.Source, c.TLS, c.Auth)
	if c.Proxy != nil {
		b.WriteString(", Proxy: " + c.Proxy.Redacted())
	}
	if c.DisableCompression {
		b.WriteString(", DisableCompression")
	}
	b.WriteString("}")
	return b.String()
}

// GoString is what %#v prints: String, marked with the package name.
func (c Config) GoString() string { return "kubeconfig." + c.String() }

// Format prints String (GoString for %#v) for every verb.
func (c Config) Format(f fmt.State, verb rune) { format(f, verb, c) }

// LogValue is what log/slog records: String.
func (c Config) LogValue() slog.Value { return slog.StringValue(c.String()) }

// String names the trust anchor: the system roots, a CA of our own, or none at all.
func (t TLSConfig) String() string {
	s := "system roots"
	switch {
	case t.Insecure:
		s = "insecure-skip-tls-verify"
	case len(t.CAData) > 0:
		s = "certificate-authority"
	}
	if t.ServerName != "" {
		s += " (server name " + t.ServerName + ")"
	}
	return s
}

// String lists the kinds of credential held, e.g. "token", "exec aws",
// "client-certificate+impersonate jane"; "none" when anonymous.
func (a AuthConfig) String() string {
	var parts []string
	add := func(ok bool, s string) {
		if ok {
			parts = append(parts, s)
		}
	}
	add(a.Token != "", "token")
	add(a.TokenFile != "", "tokenFile "+a.TokenFile)
	add(a.Username != "" || a.Password != "", "basic")
	add(len(a.CertData) > 0 || len(a.KeyData) > 0, "client-certificate")
	if a.Exec != nil {
		parts = append(parts, a.Exec.String())
	}
	add(a.Impersonate != "", "impersonate "+a.Impersonate)
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "+")
}

// GoString, Format and LogValue: as for Config.
func (a AuthConfig) GoString() string              { return "kubeconfig.AuthConfig{" + a.String() + "}" }
func (a AuthConfig) Format(f fmt.State, verb rune) { format(f, verb, a) }
func (a AuthConfig) LogValue() slog.Value          { return slog.StringValue(a.String()) }

// String names the command, not its arguments or environment: those may hold an
// account name or a key.
func (x ExecConfig) String() string { return "exec " + x.Command }

// GoString and Format: as for Config.
func (x ExecConfig) GoString() string              { return "kubeconfig.ExecConfig{" + x.String() + "}" }
func (x ExecConfig) Format(f fmt.State, verb rune) { format(f, verb, x) }

// format writes GoString for %#v and String for everything else.
func format(f fmt.State, verb rune, v interface {
	String() string
	GoString() string
}) {
	if verb == 'v' && f.Flag('#') {
		io.WriteString(f, v.GoString())
		return
	}
	io.WriteString(f, v.String())
}
