package kubeconfig

import (
	"context"
	"crypto/tls"
	"io"
	"os"
	"sync"
	"time"
)

// credential is what one run of an exec plugin handed us: a token, a client
// certificate, or both, valid until expiry.
//
// Immutable once built. It is shared by pointer, so that a 401 can say which
// credential the server refused (refresh, forget).
type credential struct {
	authz  string           // "Bearer <token>"; "" when the plugin gave a certificate only
	cert   *tls.Certificate // nil when the plugin gave a token only
	expiry time.Time        // zero: the plugin gave none; used until a 401
}

// authorization is the Authorization header value; "" for a certificate-only credential.
func (c *credential) authorization() string { return c.authz }

// execPlugin runs an exec credential plugin when it must, and only then: the
// credential is cached until its expirationTimestamp (or, without one, until the
// server answers 401), and concurrent requests wait for one run rather than start
// one each.
//
//	get ──valid cached──▶ credential
//	 └──none/expired──▶ renew ─▶ run the plugin (one at a time) ─▶ cache ─▶ credential
//	refresh(stale) ─▶ renew, unless another caller already replaced stale
//
// Built by newExecPlugin; the zero value is not usable. Safe for concurrent use.
type execPlugin struct {
	cfg     ExecConfig
	cluster *execCluster // spec.cluster for the plugin; nil unless ProvideClusterInfo
	source  string       // for errors: the kubeconfig ...
	user    string       // ... and the user entry
	now     func() time.Time
	rotated func()    // called when the client certificate changes: drop idle connections
	stderr  io.Writer // where the plugin's stderr goes: Config.Stderr, else os.Stderr

	running chan struct{} // one slot: at most one plugin process at a time

	mu   sync.Mutex
	cred *credential // guarded by mu; nil until the first run
}

func newExecPlugin(c *Config, now func() time.Time, rotated func()) *execPlugin {
	p := &execPlugin{
		cfg:     *c.Auth.Exec,
		source:  c.Source,
		user:    c.User,
		now:     now,
		rotated: rotated,
		stderr:  c.Stderr,
		running: make(chan struct{}, 1),
	}
	if p.stderr == nil {
		p.stderr = os.Stderr
	}
	if p.cfg.ProvideClusterInfo {
		p.cluster = &execCluster{
			Server:                c.Server,
			TLSServerName:         c.TLS.ServerName,
			InsecureSkipTLSVerify: c.TLS.Insecure,
			CAData:                c.TLS.CAData,
			DisableCompression:    c.DisableCompression,
			Config:                p.cfg.ClusterExtension,
		}
		if c.Proxy != nil {
			p.cluster.ProxyURL = c.Proxy.String()
		}
	}
	return p
}

// get returns the cached credential while it is valid, else a fresh one.
//
// Cost: a mutex when cached; a process start (tens of milliseconds to seconds, the
// plugin may call a cloud API) when not.
func (p *execPlugin) get(ctx context.Context) (*credential, error) {
	p.mu.Lock()
	cred := p.cred
	p.mu.Unlock()
	if cred != nil && p.valid(cred) {
		return cred, nil
	}
	return p.renew(ctx, nil)
}

// refresh replaces stale, the credential a server just refused with 401.
func (p *execPlugin) refresh(ctx context.Context, stale *credential) (*credential, error) {
	return p.renew(ctx, stale)
}

// forget drops stale from the cache, so that the next request runs the plugin.
func (p *execPlugin) forget(stale *credential) {
	p.mu.Lock()
	if p.cred == stale {
		p.cred = nil
	}
	p.mu.Unlock()
}

// clientCertificate is tls.Config.GetClientCertificate: the TLS stack asks at every
// handshake the server requests a certificate, so a renewed certificate is picked up
// by the next connection. A token-only credential answers with no certificate.
func (p *execPlugin) clientCertificate(info *tls.CertificateRequestInfo) (*tls.Certificate, error) {
	cred, err := p.get(info.Context())
	if err != nil {
		return nil, err
	}
	if cred.cert == nil {
		return &tls.Certificate{}, nil
	}
	return cred.cert, nil
}

// renew runs the plugin, one caller at a time. A caller that waited for the slot
// first looks at what the previous run left: if that credential is valid (and is
// not the stale one being replaced) it is the answer, and the plugin does not run.
func (p *execPlugin) renew(ctx context.Context, stale *credential) (*credential, error) {
	select {
	case p.running <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-p.running }()

	p.mu.Lock()
	old := p.cred
	p.mu.Unlock()
	if old != nil && old != stale && p.valid(old) {
		return old, nil
	}

	fresh, err := p.run(ctx)
	if err != nil {
		return nil, err // not cached: the next request tries again
	}
	p.mu.Lock()
	p.cred = fresh
	p.mu.Unlock()

	// Connections made with the old certificate stay authenticated as it; closing
	// the idle ones makes the next request handshake with the new one.
	if old != nil && old.cert != nil && p.rotated != nil {
		p.rotated()
	}
	return fresh, nil
}

// valid reports whether cred has not expired. A credential without an expiry is
// valid until a 401 says otherwise.
func (p *execPlugin) valid(cred *credential) bool {
	return cred.expiry.IsZero() || p.now().Before(cred.expiry)
}
