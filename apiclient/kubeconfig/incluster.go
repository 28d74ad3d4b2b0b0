package kubeconfig

import (
	"crypto/x509"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
)

// inCluster builds the Config of a process running in a pod: the kubelet sets
// KUBERNETES_SERVICE_HOST and _PORT to the kubernetes Service and mounts the pod's
// service account (token, ca.crt, namespace) in ServiceAccountDir.
//
// It returns ErrNoConfig when the two variables are not both set: we are not in a
// pod. When they are set, a missing token or CA is an *Error, not ErrNoConfig: the
// pod is there, its mount is broken, and falling back to the demo would hide that.
func inCluster(opts Options) (*Config, error) {
	host, port := opts.Getenv("KUBERNETES_SERVICE_HOST"), opts.Getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return nil, ErrNoConfig
	}
	dir := opts.ServiceAccountDir
	if dir == "" {
		dir = DefaultServiceAccountDir
	}
	fail := func(field string, err error) error {
		return &Error{Source: "in-cluster", Field: field, Err: err}
	}

	// The token is only checked here; the transport reads it again (tokenFile) so
	// that the kubelet's rotation of the projected token reaches us.
	tokenPath := filepath.Join(dir, "token")
	if _, err := readToken(tokenPath); err != nil {
		return nil, fail("token", err)
	}
	ca, err := readFile(filepath.Join(dir, "ca.crt"))
	if err == nil && !x509.NewCertPool().AppendCertsFromPEM(ca) {
		err = errors.New("no PEM certificate found")
	}
	if err != nil {
		return nil, fail("ca.crt", err)
	}
	namespace := "default"
	switch data, err := readFile(filepath.Join(dir, "namespace")); {
	case err == nil && strings.TrimSpace(string(data)) != "":
		namespace = strings.TrimSpace(string(data))
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return nil, fail("namespace", err)
	}

	return &Config{
		// JoinHostPort brackets an IPv6 service address (fd00::1 → [fd00::1]:443).
		Server:    "https://" + net.JoinHostPort(host, port),
		Namespace: namespace,
		Source:    "in-cluster",
		TLS:       TLSConfig{CAData: ca},
		Auth:      AuthConfig{TokenFile: tokenPath},
	}, nil
}
