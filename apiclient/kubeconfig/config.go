package kubeconfig

import (
	"errors"
	"net/http"
	"net/url"
	"time"
)

// Config says where one API server is and who we are to it: everything the REST client
// in package apiclient needs, resolved from a kubeconfig file or from the in-cluster
// service account. It holds credentials; its String method and every error built
// from it leave them out.
//
// The zero value is not useful; build one with Load (or by hand in tests).
// A Config is safe to read from many goroutines once built.
type Config struct {
	// Server is the API server's base URL, e.g. https://127.0.0.1:6443; it may carry a
	// path prefix (https://host/k8s/clusters/c-1) that every request path is joined to.
	Server string
	// Namespace is the context's namespace, else "default".
	Namespace string
	// Context is the name of the kubeconfig context used; "" in-cluster.
	Context string
	// Source says where the config came from, for messages: a file path, or "in-cluster".
	Source string

	TLS   TLSConfig
	Auth  AuthConfig
	Proxy *url.URL // proxy-url; nil means the environment's (HTTPS_PROXY, NO_PROXY)

	// DisableCompression turns off gzip on responses (kubeconfig disable-compression).
	DisableCompression bool
	// Timeout bounds the TCP and TLS handshakes; 0 means 30 s.
	Timeout time.Duration
}

// TLSConfig is the cluster half of the kubeconfig's TLS settings.
type TLSConfig struct {
	CAData     []byte // PEM; empty means the system roots
	Insecure   bool   // insecure-skip-tls-verify
	ServerName string // tls-server-name
}

// AuthConfig is the user half: at most one way to prove who we are, plus impersonation.
type AuthConfig struct {
	Token     string // bearer token
	TokenFile string // re-read so rotated (projected) tokens keep working
	Username  string // basic auth
	Password  string
	CertData  []byte // client certificate, PEM
	KeyData   []byte // its key, PEM
	Exec      *ExecConfig

	Impersonate       string   // as
	ImpersonateGroups []string // as-groups
}

// ExecConfig is a client.authentication.k8s.io exec credential plugin.
type ExecConfig struct {
	APIVersion      string
	Command         string
	Args            []string
	Env             map[string]string
	InteractiveMode string
}

// ErrNoConfig is returned by Load when there is no kubeconfig anywhere and we are not
// running inside a cluster.
var ErrNoConfig = errors.New("no kubeconfig found and not running in a cluster")

// Transport returns the http.RoundTripper every request to this server goes through:
// TLS as configured, and authentication and impersonation headers on every request.
func (c *Config) Transport() (http.RoundTripper, error) {
	return nil, errors.New("kubeconfig: Transport not implemented yet")
}
