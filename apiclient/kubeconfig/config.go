package kubeconfig

import (
	"encoding/json"
	"errors"
	"io"
	"net/url"
	"time"
)

// Config says where one API server is and who we are to it: everything the REST client
// in package apiclient needs, resolved from a kubeconfig file or from the in-cluster
// service account. It holds credentials; its String, GoString, Format and LogValue
// methods and every error built from it leave them out.
//
// The zero value is not useful; build one with Load or Parse (or by hand in tests).
// A Config is safe to read from many goroutines once built; do not change it after
// Transport was called, the transport has already copied what it needs.
type Config struct {
	// Server is the API server's base URL, e.g. https://127.0.0.1:6443; it may carry a
	// path prefix (https://host/k8s/clusters/c-1) that every request path is joined to.
	Server string
	// Namespace is the context's namespace, else "default".
	Namespace string
	// Context is the name of the kubeconfig context used; "" in-cluster.
	Context string
	// Cluster and User name the kubeconfig entries the context pointed at; "" in-cluster.
	// Errors found later (an exec plugin failing at request time) name them.
	Cluster string
	User    string
	// Source says where the config came from, for messages: a file path, or "in-cluster".
	// With a KUBECONFIG list it is the file that held the context.
	Source string

	TLS   TLSConfig
	Auth  AuthConfig
	Proxy *url.URL // proxy-url; nil means the environment's (HTTPS_PROXY, NO_PROXY)

	// DisableCompression turns off gzip on responses (kubeconfig disable-compression).
	DisableCompression bool
	// Timeout bounds the TCP and TLS handshakes; 0 means 30 s.
	Timeout time.Duration

	// Now is the clock used to age cached credentials (the token file, exec plugin
	// credentials); nil means time.Now. Tests set a fake clock instead of sleeping.
	Now func() time.Time `json:"-"`
	// Stderr is where an exec plugin's standard error goes as it runs, as
	// client-go passes it through to its own; nil means os.Stderr. It is never
	// kept: what a plugin prints may hold a credential (a refresh token), so it
	// reaches no error, log record or page of ours.
	Stderr io.Writer `json:"-"`
}

// TLSConfig is the cluster half of the kubeconfig's TLS settings. Plain data: the
// zero value means "verify against the system roots". Nothing in it is secret: a CA
// certificate is public.
type TLSConfig struct {
	CAData     []byte // PEM; empty means the system roots
	Insecure   bool   // insecure-skip-tls-verify
	ServerName string // tls-server-name
}

// AuthConfig is the user half: at most one way to prove who we are at the HTTP level
// (Token, TokenFile, Username/Password or Exec), optionally a client certificate at
// the TLS level, plus impersonation.
//
// Plain data: the zero value is an anonymous user. Secret fields carry `json:"-"` so
// that an accidental json.Marshal of a Config leaves them out, like the fmt and slog
// methods do.
type AuthConfig struct {
	Token     string `json:"-"` // bearer token
	TokenFile string // re-read (at most once a minute) so rotated projected tokens keep working
	Username  string // basic auth
	Password  string `json:"-"`
	CertData  []byte // client certificate, PEM
	KeyData   []byte `json:"-"` // its key, PEM
	Exec      *ExecConfig

	Impersonate       string              // as: the Impersonate-User header
	ImpersonateGroups []string            // as-groups: one Impersonate-Group header each
	ImpersonateUID    string              // as-uid: Impersonate-Uid
	ImpersonateExtra  map[string][]string // as-user-extra: Impersonate-Extra-<key>
}

// ExecConfig is a client.authentication.k8s.io exec credential plugin: a command we run
// to get a token or a client certificate, printed on its stdout as an ExecCredential.
// Plain data; the zero value is not a valid plugin (APIVersion, Command and
// InteractiveMode are required). The running state (the cached credential) lives in
// the transport, not here.
type ExecConfig struct {
	APIVersion string // client.authentication.k8s.io/v1 or /v1beta1
	// Command is a name looked up in PATH, or a path; a relative path with a slash was
	// resolved against the kubeconfig file's directory by Load.
	Command string
	// Args and Env may carry an account, a role or a key, so they are left out of
	// printing (String) and of json.Marshal, like the other secrets.
	Args            []string          `json:"-"`
	Env             map[string]string `json:"-"` // added to our own environment, winning over it
	InteractiveMode string            // Never, IfAvailable or Always

	// InstallHint is shown when Command is not found.
	InstallHint string
	// ProvideClusterInfo passes the cluster (server, CA, ...) to the plugin in
	// KUBERNETES_EXEC_INFO's spec.cluster.
	ProvideClusterInfo bool
	// ClusterExtension is the JSON of the cluster's client.authentication.k8s.io/exec
	// extension; it is passed as spec.cluster.config when ProvideClusterInfo is set.
	ClusterExtension json.RawMessage
}

// ErrNoConfig is returned by Load when there is no kubeconfig anywhere and we are not
// running inside a cluster.
var ErrNoConfig = errors.New("no kubeconfig found and not running in a cluster")

// The exec credential API versions we speak. v1alpha1 was removed from Kubernetes in 1.24.
const (
	ExecAPIv1      = "client.authentication.k8s.io/v1"
	ExecAPIv1beta1 = "client.authentication.k8s.io/v1beta1"
)

// The interactive modes of an exec plugin (ExecConfig.InteractiveMode).
const (
	InteractiveNever       = "Never"
	InteractiveIfAvailable = "IfAvailable"
	InteractiveAlways      = "Always"
)
