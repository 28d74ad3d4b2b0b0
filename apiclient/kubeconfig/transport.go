package kubeconfig

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"
)

// Transport returns the http.RoundTripper every request to this server goes through:
//
//	request ─▶ auth (clone; Authorization; Impersonate-*; 401 → exec again, retry once;
//	                 a failed answer's body comes back with the credential masked)
//	        ─▶ *http.Transport (TLS ≥ 1.2 as configured; proxy; HTTP/2; keep-alive)
//
// A transport that holds a credential — a token, a password, a plugin, a client
// certificate — serves only Server's scheme and host (all requests if Server is
// ""): a request elsewhere, a redirect to another host, fails rather than carry
// any of them; and it never sends them to a plain http:// host other than
// loopback: such a request fails instead.
//
// Call it once and share the result, which is safe for concurrent use: every call
// builds a new connection pool and a new exec-credential cache (a second call runs
// the plugin again). Building runs no plugin and dials nothing.
func (c *Config) Transport() (http.RoundTripper, error) {
	var server *url.URL
	if c.Server != "" {
		if err := checkServer(c.Server); err != nil {
			return nil, c.clusterError("server", err)
		}
		server, _ = url.Parse(c.Server)
	}
	tlsConf, err := c.tlsConfig()
	if err != nil {
		return nil, err
	}

	timeout := c.Timeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	proxy := http.ProxyFromEnvironment
	if c.Proxy != nil {
		proxy = http.ProxyURL(c.Proxy)
	}
	dialer := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}
	base := &http.Transport{
		Proxy:                 proxy,
		DialContext:           dialer.DialContext,
		TLSClientConfig:       tlsConf,
		TLSHandshakeTimeout:   timeout,
		ForceAttemptHTTP2:     true, // a custom TLSClientConfig would otherwise turn HTTP/2 off
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   25, // HTTP/1.1 only (a proxy, say); HTTP/2 multiplexes one connection
		IdleConnTimeout:       90 * time.Second,
		ExpectContinueTimeout: time.Second,
		DisableCompression:    c.DisableCompression,
		// HTTP/2 health checks, client-go's numbers: a connection silent for 30 s
		// is sent a ping, and one that does not answer within 15 s is closed,
		// which fails every watch on it. A half-open connection (a server
		// stopped, a NAT that forgot us) is noticed within 45 s, where only the
		// Reflector's watchdog — its watch timeout plus a margin, minutes — would
		// notice otherwise.
		HTTP2: &http.HTTP2Config{SendPingTimeout: http2PingAfter, PingTimeout: http2PingTimeout},
	}

	auth := &authTransport{base: base, server: server, impersonate: c.impersonation()}
	if auth.authorize, auth.exec, err = c.authenticator(base); err != nil {
		return nil, err
	}
	if auth.exec != nil {
		// Asked for at every TLS handshake, so a renewed certificate is used by the
		// next connection without rebuilding anything.
		tlsConf.GetClientCertificate = auth.exec.clientCertificate
	}
	auth.secret = auth.authorize != nil || auth.exec != nil
	if auth.secret && server != nil && !confidential(server) {
		return nil, c.clusterError("server", errPlainHTTP)
	}
	if auth.secret && server != nil && server.Scheme == "http" && c.Proxy != nil && !confidential(c.Proxy) {
		return nil, c.clusterError("proxy-url", errPlainHTTP)
	}
	if !auth.secret && len(auth.impersonate) == 0 && len(c.Auth.CertData) == 0 {
		return base, nil // no credential of any kind: no wrapper
	}
	return auth, nil
}

// The HTTP/2 health check (see Transport).
const (
	http2PingAfter   = 30 * time.Second
	http2PingTimeout = 15 * time.Second
)

// tlsConfig builds the client TLS settings. Verification is on unless the kubeconfig
// says insecure-skip-tls-verify, and then there must be no CA: the two contradict.
func (c *Config) tlsConfig() (*tls.Config, error) {
	conf := &tls.Config{
		MinVersion:         tls.VersionTLS12, // what the API server accepts by default
		InsecureSkipVerify: c.TLS.Insecure,
		ServerName:         c.TLS.ServerName,
	}
	if len(c.TLS.CAData) > 0 {
		if c.TLS.Insecure {
			return nil, c.clusterError("insecure-skip-tls-verify", errors.New("a certificate authority is set too; keep one"))
		}
		conf.RootCAs = x509.NewCertPool()
		if !conf.RootCAs.AppendCertsFromPEM(c.TLS.CAData) {
			return nil, c.clusterError("certificate-authority-data", errors.New("no PEM certificate found"))
		}
	}
	if a := c.Auth; len(a.CertData) > 0 || len(a.KeyData) > 0 {
		if a.Exec != nil {
			return nil, c.userError("exec", errors.New("a client certificate is set too; keep one"))
		}
		cert, err := tls.X509KeyPair(a.CertData, a.KeyData)
		if err != nil {
			return nil, c.userError("client-certificate-data/client-key-data", err)
		}
		conf.Certificates = []tls.Certificate{cert}
	}
	return conf, nil
}

// authenticator picks the one HTTP-level credential. Load already refused a user with
// two; a Config built by hand gets the same answer here.
func (c *Config) authenticator(base *http.Transport) (func(context.Context) (string, error), *execPlugin, error) {
	a := c.Auth
	basic := a.Username != "" || a.Password != ""
	n := 0
	for _, set := range []bool{a.Token != "", a.TokenFile != "", basic, a.Exec != nil} {
		if set {
			n++
		}
	}
	if n > 1 {
		return nil, nil, c.userError("", errors.New("more than one of token, tokenFile, username/password and exec is set; keep one"))
	}

	now := c.Now
	if now == nil {
		now = time.Now
	}
	switch {
	case a.Exec != nil:
		// Load checked these; a Config built by hand may not have been.
		if v := a.Exec.APIVersion; v != ExecAPIv1 && v != ExecAPIv1beta1 {
			return nil, nil, c.userError("exec", fmt.Errorf("apiVersion: want %s or %s", ExecAPIv1, ExecAPIv1beta1))
		}
		if a.Exec.Command == "" {
			return nil, nil, c.userError("exec", errors.New("command: missing"))
		}
		return nil, newExecPlugin(c, now, base.CloseIdleConnections), nil
	case a.TokenFile != "":
		tf := &tokenFile{path: a.TokenFile, now: now}
		return func(ctx context.Context) (string, error) {
			authz, err := tf.authorization(ctx)
			if err != nil {
				return "", sendError(c.Source, c.User, "tokenFile", err)
			}
			return authz, nil
		}, nil, nil
	case a.Token != "":
		return constant("Bearer " + a.Token), nil, nil
	case basic:
		return constant("Basic " + base64.StdEncoding.EncodeToString([]byte(a.Username+":"+a.Password))), nil, nil
	}
	return nil, nil, nil
}

// impersonation is the set of Impersonate-* headers every request carries.
func (c *Config) impersonation() http.Header {
	a, h := c.Auth, http.Header{}
	if a.Impersonate != "" {
		h.Set("Impersonate-User", a.Impersonate)
	}
	if a.ImpersonateUID != "" {
		h.Set("Impersonate-Uid", a.ImpersonateUID)
	}
	for _, g := range a.ImpersonateGroups {
		h.Add("Impersonate-Group", g)
	}
	for k, vs := range a.ImpersonateExtra {
		// The key travels in a header name, where only token characters may stand;
		// the API server unescapes it.
		for _, v := range vs {
			h.Add("Impersonate-Extra-"+url.PathEscape(k), v)
		}
	}
	return h
}

func (c *Config) clusterError(field string, err error) error {
	return &Error{Source: c.Source, Entry: named("cluster", c.Cluster), Field: field, Err: err}
}

func (c *Config) userError(field string, err error) error {
	return &Error{Source: c.Source, Entry: named("user", c.User), Field: field, Err: err}
}

// named is entryName, or "" for a Config built without entry names.
func named(kind, name string) string {
	if name == "" {
		return ""
	}
	return entryName(kind, name)
}

// constant is an authorization that never changes (a token, basic auth).
func constant(value string) func(context.Context) (string, error) {
	return func(context.Context) (string, error) { return value, nil }
}
