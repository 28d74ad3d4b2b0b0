package kubeconfig

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// errPlainHTTP is why a credential is not sent: anyone on the path could read it.
var errPlainHTTP = errors.New("refusing to send credentials over plain http to a host that is not loopback, or through a plain-http proxy that is not; use https")

// authTransport adds who we are to each request and hands it to base. It never
// changes the caller's request: it sends a clone (the RoundTripper contract).
//
// Built by Config.Transport; not usable as a zero value. Safe for concurrent use:
// its fields are read-only after construction and the credential sources lock.
type authTransport struct {
	base   *http.Transport
	server *url.URL // credentials go to this scheme and host only; nil: to any host

	// authorize returns the Authorization value of a token, token file or basic auth;
	// nil when the user has none of those.
	authorize func(context.Context) (string, error)
	// exec is the exec plugin, when the user has one. Its token goes in Authorization;
	// its certificate goes in the TLS handshake (tls.Config.GetClientCertificate).
	exec *execPlugin
	// secret is whether we send anything plain http must not carry.
	secret bool

	impersonate http.Header // Impersonate-* headers, the same on every request
}

// RoundTrip sends req with credentials. With an exec plugin, a 401 means the
// credential was revoked or expired early: the plugin runs again and the request is
// sent once more, if its body can be replayed (GetBody, or no body). A second 401 is
// returned to the caller as it is.
func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, authz, err := t.send(req)
	if err == nil && resp.StatusCode >= 400 && authz != "" {
		resp.Body = masked(resp.Body, authz)
	}
	return resp, err
}

// send is RoundTrip less the masking; it also returns the Authorization value
// the answer is to.
func (t *authTransport) send(req *http.Request) (*http.Response, string, error) {
	if t.server != nil && !sameHost(req.URL, t.server) {
		// Not our server — a redirect elsewhere, most likely. Not even
		// without the Authorization header: the TLS client certificate goes
		// with every connection this transport makes (the pattern of
		// CVE-2022-3172), so the request is refused.
		closeBody(req)
		return nil, "", fmt.Errorf("refusing a request to %s: this kubeconfig's credentials are for %s only", hostPort(req.URL), hostPort(t.server))
	}
	if t.secret && !t.protected(req) {
		closeBody(req)
		return nil, "", errPlainHTTP
	}

	authz, cred, err := t.credential(req.Context())
	if err != nil {
		closeBody(req)
		return nil, "", err
	}
	resp, err := t.base.RoundTrip(t.withAuth(req, authz))
	if err != nil || resp.StatusCode != http.StatusUnauthorized || t.exec == nil {
		return resp, authz, err
	}
	if !replayable(req) {
		// We cannot send this body again, but the next request should not use the
		// credential the server just refused.
		t.exec.forget(cred)
		return resp, authz, nil
	}

	// Read the rest of the 401 so its connection can be reused, then ask the plugin
	// again. refresh runs it only if no other request did so since cred was handed out.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	fresh, err := t.exec.refresh(req.Context(), cred)
	if err != nil {
		return nil, "", err
	}
	retry := req
	if req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return nil, "", err
		}
		retry = req.Clone(req.Context())
		retry.Body = body
	}
	authz = fresh.authorization()
	resp, err = t.base.RoundTrip(t.withAuth(retry, authz))
	return resp, authz, err
}

// credential returns the Authorization value to send ("" for none) and, with an exec
// plugin, the credential it came from, so that a 401 can tell refresh which one failed.
func (t *authTransport) credential(ctx context.Context) (string, *credential, error) {
	switch {
	case t.exec != nil:
		cred, err := t.exec.get(ctx)
		if err != nil {
			return "", nil, err
		}
		return cred.authorization(), cred, nil
	case t.authorize != nil:
		authz, err := t.authorize(ctx)
		return authz, nil, err
	}
	return "", nil, nil
}

// withAuth returns a clone of req with our headers. An Authorization header the caller
// set already is kept: they asked for it.
func (t *authTransport) withAuth(req *http.Request, authz string) *http.Request {
	r := req.Clone(req.Context()) // deep-copies the header; the body is shared, not copied
	if authz != "" && r.Header.Get("Authorization") == "" {
		r.Header.Set("Authorization", authz)
	}
	for k, vs := range t.impersonate {
		r.Header[k] = append([]string(nil), vs...)
	}
	return r
}

// CloseIdleConnections lets http.Client.CloseIdleConnections reach the pool.
func (t *authTransport) CloseIdleConnections() { t.base.CloseIdleConnections() }

// replayable reports whether req can be sent a second time.
func replayable(req *http.Request) bool {
	return req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
}

// confidential reports whether a credential may travel to u: over TLS, or to this
// machine (http://127.0.0.1 in tests, a kubectl proxy on localhost).
func confidential(u *url.URL) bool {
	if u.Scheme == "https" {
		return true
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// protected reports whether a credential in req is read by nobody but the
// server: https, even through a proxy (CONNECT keeps TLS end to end); plain http
// only to a loopback server, and then only directly or through a proxy that is
// itself loopback or https — a plain-http proxy elsewhere would read it in clear
// (issue 16: proxy-url was not looked at).
func (t *authTransport) protected(req *http.Request) bool {
	if req.URL.Scheme == "https" {
		return true
	}
	if !confidential(req.URL) {
		return false
	}
	if t.base.Proxy == nil {
		return true
	}
	proxy, err := t.base.Proxy(req)
	return err == nil && (proxy == nil || confidential(proxy))
}

// sameHost compares scheme and host:port, the origin a credential is meant for.
func sameHost(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(hostPort(a), hostPort(b))
}

// hostPort spells out the default port, so https://h and https://h:443 are one host.
func hostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// closeBody honours the RoundTripper contract when we fail before sending: the
// request body is closed on every path.
func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// maxMasked is how much of a failed response masked keeps: as much as apiclient
// reads of one (its maxErrorBody).
const maxMasked = 1 << 20

// masked returns the start of a failed response's body with every copy of the
// credential sent replaced by "[redacted]": a server (or a proxy before it)
// that echoes the request's Authorization header in its error page would
// otherwise put the token in the error the user reads (issue 16). The token
// alone is masked too, and for basic auth the decoded user:password and the
// password.
func masked(body io.ReadCloser, authz string) io.ReadCloser {
	data, _ := io.ReadAll(io.LimitReader(body, maxMasked))
	body.Close()
	secrets := []string{authz}
	if scheme, value, ok := strings.Cut(authz, " "); ok {
		secrets = append(secrets, value)
		if strings.EqualFold(scheme, "Basic") {
			if pair, err := base64.StdEncoding.DecodeString(value); err == nil {
				_, password, _ := strings.Cut(string(pair), ":")
				secrets = append(secrets, string(pair), password)
			}
		}
	}
	for _, secret := range secrets {
		if len(secret) >= 4 { // a one-letter password would mask half the page
			data = bytes.ReplaceAll(data, []byte(secret), []byte("[redacted]"))
		}
	}
	return io.NopCloser(bytes.NewReader(data))
}
