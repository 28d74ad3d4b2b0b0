package kubeconfig

import (
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"

	"gopkg.in/yaml.v3"
)

// execExtension is the name of the cluster extension an exec plugin receives as
// spec.cluster.config when provideClusterInfo is set.
const execExtension = "client.authentication.k8s.io/exec"

// readCluster fills cfg's server, TLS, proxy and compression settings from a cluster
// entry, and returns its exec extension (as JSON) for readUser.
func readCluster(cfg *Config, e entry) (json.RawMessage, error) {
	var (
		server, ca, caData, serverName, proxy string
		insecure, noCompression               bool
		extensions                            *yaml.Node
	)
	fail := func(field string, err error) error {
		return &Error{Source: e.source, Entry: entryName("cluster", cfg.Cluster), Field: field, Err: err}
	}
	bad, err := decodeFields(e.body, []field{
		{"server", str(&server)},
		{"certificate-authority", str(&ca)},
		{"certificate-authority-data", str(&caData)},
		{"insecure-skip-tls-verify", boolean(&insecure)},
		{"tls-server-name", str(&serverName)},
		{"proxy-url", str(&proxy)},
		{"disable-compression", boolean(&noCompression)},
		{"extensions", node(&extensions)},
	})
	if err != nil {
		return nil, fail(bad, err)
	}

	if err := checkServer(server); err != nil {
		return nil, fail("server", err)
	}
	cfg.Server = server

	// The CA: inline data or a file, not both (kubectl calls both an error too).
	field := "certificate-authority-data"
	switch {
	case ca != "" && caData != "":
		return nil, fail(field, errors.New("certificate-authority is set too; keep one"))
	case caData != "":
		if cfg.TLS.CAData, err = base64.StdEncoding.DecodeString(caData); err != nil {
			return nil, fail(field, err)
		}
	case ca != "":
		field = "certificate-authority"
		if cfg.TLS.CAData, err = readFile(resolvePath(e.source, ca)); err != nil {
			return nil, fail(field, err)
		}
	}
	if len(cfg.TLS.CAData) > 0 && !x509.NewCertPool().AppendCertsFromPEM(cfg.TLS.CAData) {
		return nil, fail(field, errors.New("no PEM certificate found"))
	}
	if insecure && len(cfg.TLS.CAData) > 0 {
		// Verifying against a CA and not verifying at all cannot both be meant.
		return nil, fail("insecure-skip-tls-verify", fmt.Errorf("%s is set too; keep one", field))
	}
	cfg.TLS.Insecure, cfg.TLS.ServerName = insecure, serverName

	if proxy != "" {
		if cfg.Proxy, err = parseProxy(proxy); err != nil {
			return nil, fail("proxy-url", err)
		}
	}
	cfg.DisableCompression = noCompression

	ext, err := execExtensionJSON(extensions)
	if err != nil {
		return nil, fail("extensions", err)
	}
	return ext, nil
}

// checkServer accepts http(s)://host[:port][/prefix] and nothing else. Credentials in
// the URL are refused: they belong in a user entry, where we know how to hide them.
func checkServer(server string) error {
	if server == "" {
		return errMissing
	}
	u, err := url.Parse(server)
	if err != nil {
		return urlReason(err)
	}
	if u.Scheme != "https" && u.Scheme != "http" || u.Host == "" {
		return errors.New("want https://host[:port]")
	}
	if u.User != nil {
		return errors.New("user info in the URL is not supported; put credentials in the user entry")
	}
	return nil
}

// parseProxy accepts the schemes net/http can dial through.
func parseProxy(proxy string) (*url.URL, error) {
	u, err := url.Parse(proxy)
	if err != nil {
		return nil, urlReason(err)
	}
	switch u.Scheme {
	case "http", "https", "socks5":
	default:
		return nil, fmt.Errorf("scheme %q: want http, https or socks5", u.Scheme)
	}
	if u.Host == "" {
		return nil, errors.New("no host")
	}
	return u, nil
}

// urlReason drops the URL from a url.Parse error: it may hold a password.
func urlReason(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Errorf("not a valid URL: %v", ue.Err)
	}
	return errors.New("not a valid URL")
}

// execExtensionJSON finds the exec extension in a cluster's extensions list and turns
// it into JSON. Other extensions are none of our business.
func execExtensionJSON(list *yaml.Node) (json.RawMessage, error) {
	if isNull(list) {
		return nil, nil
	}
	if list.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("want a list, found %s", kindName(list))
	}
	for _, item := range list.Content {
		var name string
		var ext *yaml.Node
		if bad, err := decodeFields(deref(item), []field{{"name", str(&name)}, {"extension", node(&ext)}}); err != nil {
			return nil, keyed(bad, err)
		}
		if name != execExtension || isNull(ext) {
			continue
		}
		var v any
		if err := ext.Decode(&v); err != nil {
			return nil, fmt.Errorf("%s: %s", name, quietYAML(err))
		}
		data, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("%s: cannot be passed on as JSON: %v", name, err)
		}
		return data, nil
	}
	return nil, nil
}
