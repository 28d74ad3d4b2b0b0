package kubeconfig

import (
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
)

// readUser fills cfg.Auth from a user entry. Everything that can be checked without
// talking to anyone is checked here, at load time: files exist, base64 decodes,
// the certificate matches its key, at most one HTTP credential is set. A kubeconfig
// that loads is one whose only remaining failures are the network's and the plugin's.
func readUser(cfg *Config, e entry, ext json.RawMessage) error {
	var (
		u                                       struct{ token, tokenFile, username, password string }
		cert, certData, key, keyData, as, asUID string
		asGroups                                []string
		asExtra                                 map[string][]string
		exec, authProvider                      *yaml.Node
	)
	fail := func(field string, err error) error {
		return &Error{Source: e.source, Entry: entryName("user", cfg.User), Field: field, Err: err}
	}
	bad, err := decodeFields(e.body, []field{
		{"token", str(&u.token)},
		{"tokenFile", str(&u.tokenFile)},
		{"username", str(&u.username)},
		{"password", str(&u.password)},
		{"client-certificate", str(&cert)},
		{"client-certificate-data", str(&certData)},
		{"client-key", str(&key)},
		{"client-key-data", str(&keyData)},
		{"as", str(&as)},
		{"as-uid", str(&asUID)},
		{"as-groups", strs(&asGroups)},
		{"as-user-extra", strMap(&asExtra)},
		{"exec", node(&exec)},
		{"auth-provider", node(&authProvider)},
	})
	if err != nil {
		return fail(bad, err)
	}
	if !isNull(authProvider) {
		// client-go dropped its gcp and azure providers in 1.26; every provider,
		// oidc included, has an exec plugin replacing it (gke-gcloud-auth-plugin,
		// kubelogin, ...).
		return fail("auth-provider", errors.New("not supported; use an exec credential plugin (client.authentication.k8s.io/v1) instead"))
	}

	a := &cfg.Auth
	a.Token, a.Username, a.Password = u.token, u.username, u.password
	if msg := tokenProblem(a.Token); msg != "" {
		return fail("token", errors.New(msg))
	}
	if u.tokenFile != "" {
		a.TokenFile = resolvePath(e.source, u.tokenFile)
		if _, err := readToken(a.TokenFile); err != nil {
			return fail("tokenFile", err)
		}
	}
	if a.Token != "" && a.TokenFile != "" {
		return fail("tokenFile", errors.New("token is set too; keep one"))
	}
	basic := a.Username != "" || a.Password != ""
	if basic && (a.Token != "" || a.TokenFile != "") {
		return fail("username", errors.New("a token is set too; keep one of token and basic auth"))
	}

	certField, certPEM, err := dataOrFile(e.source, "client-certificate", certData, cert)
	if err != nil {
		return fail(certField, err)
	}
	keyField, keyPEM, err := dataOrFile(e.source, "client-key", keyData, key)
	if err != nil {
		return fail(keyField, err)
	}
	switch {
	case certPEM == nil && keyPEM != nil:
		return fail("client-certificate", fmt.Errorf("missing, but %s is set", keyField))
	case certPEM != nil && keyPEM == nil:
		return fail("client-key", fmt.Errorf("missing, but %s is set", certField))
	case certPEM != nil:
		// tls's messages say which half is bad and never quote the key.
		if _, err := tls.X509KeyPair(certPEM, keyPEM); err != nil {
			return fail(certField+"/"+keyField, err)
		}
		a.CertData, a.KeyData = certPEM, keyPEM
	}

	if !isNull(exec) {
		if a.Token != "" || a.TokenFile != "" || basic {
			return fail("exec", errors.New("a token or basic auth is set too; keep one way to authenticate"))
		}
		if a.Exec, err = readExec(exec, e.source, ext); err != nil {
			return fail("exec", err)
		}
	}

	a.Impersonate, a.ImpersonateUID, a.ImpersonateGroups, a.ImpersonateExtra = as, asUID, asGroups, asExtra
	return nil
}

// dataOrFile reads a "<name>-data" (base64) or "<name>" (path) pair. It returns the key
// that was used, for messages, and nil bytes when neither is set.
func dataOrFile(source, name, data, path string) (string, []byte, error) {
	dataKey := name + "-data"
	switch {
	case data != "" && path != "":
		return dataKey, nil, fmt.Errorf("%s is set too; keep one", name)
	case data != "":
		b, err := base64.StdEncoding.DecodeString(data)
		return dataKey, b, err
	case path != "":
		b, err := readFile(resolvePath(source, path))
		return name, b, err
	}
	return dataKey, nil, nil
}

// readExec checks an exec block the way the API server's clients agree on: a known
// apiVersion, a command, and (for v1) an explicit interactiveMode.
func readExec(n *yaml.Node, source string, ext json.RawMessage) (*ExecConfig, error) {
	x := &ExecConfig{}
	var env *yaml.Node
	bad, err := decodeFields(n, []field{
		{"apiVersion", str(&x.APIVersion)},
		{"command", str(&x.Command)},
		{"args", strs(&x.Args)},
		{"env", node(&env)},
		{"installHint", str(&x.InstallHint)},
		{"provideClusterInfo", boolean(&x.ProvideClusterInfo)},
		{"interactiveMode", str(&x.InteractiveMode)},
	})
	if err == nil {
		bad, err = "env", readEnv(env, x)
	}
	if err != nil {
		return nil, keyed(bad, err)
	}

	switch x.APIVersion {
	case ExecAPIv1, ExecAPIv1beta1:
	case "":
		return nil, fmt.Errorf("apiVersion: missing; want %s", ExecAPIv1)
	case "client.authentication.k8s.io/v1alpha1":
		return nil, fmt.Errorf("apiVersion: v1alpha1 was removed in Kubernetes 1.24; want %s", ExecAPIv1)
	default:
		return nil, fmt.Errorf("apiVersion: unknown; want %s or %s", ExecAPIv1, ExecAPIv1beta1)
	}
	if x.Command == "" {
		return nil, errors.New("command: missing")
	}
	switch x.InteractiveMode {
	case InteractiveNever, InteractiveIfAvailable, InteractiveAlways:
	case "":
		if x.APIVersion == ExecAPIv1 {
			return nil, errors.New("interactiveMode: missing; v1 requires Never, IfAvailable or Always")
		}
		x.InteractiveMode = InteractiveIfAvailable // the v1beta1 default
	default:
		return nil, errors.New("interactiveMode: want Never, IfAvailable or Always")
	}

	// "./bin/plugin" is relative to the kubeconfig, like certificate paths; a bare
	// "aws" is looked up in PATH when the plugin runs.
	if strings.ContainsRune(x.Command, '/') || strings.ContainsRune(x.Command, filepath.Separator) {
		x.Command = resolvePath(source, x.Command)
	}
	if x.ProvideClusterInfo {
		x.ClusterExtension = ext
	}
	return x, nil
}

// readEnv reads exec's env: a list of {name, value}. A later name wins, as in a shell.
func readEnv(list *yaml.Node, x *ExecConfig) error {
	if isNull(list) {
		return nil
	}
	if list.Kind != yaml.SequenceNode {
		return fmt.Errorf("want a list of {name, value}, found %s", kindName(list))
	}
	x.Env = make(map[string]string, len(list.Content))
	for i, item := range list.Content {
		var name, value string
		if bad, err := decodeFields(deref(item), []field{{"name", str(&name)}, {"value", str(&value)}}); err != nil {
			return fmt.Errorf("item %d: %w", i, keyed(bad, err))
		}
		if name == "" {
			return fmt.Errorf("item %d: name: missing", i)
		}
		x.Env[name] = value
	}
	return nil
}
