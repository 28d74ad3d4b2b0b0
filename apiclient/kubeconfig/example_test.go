package kubeconfig_test

import (
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/kubewire/kubewire/apiclient/kubeconfig"
)

// Load a kubeconfig, here a kind cluster's written to a temporary directory, and see
// what the REST client will use: where, which context, which namespace, and which
// kind of credential (never its value).
func Example_load() {
	dir, err := os.MkdirTemp("", "kubeconfig-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "config")
	err = os.WriteFile(path, []byte(`
apiVersion: v1
kind: Config
current-context: kind-dev
clusters:
- name: kind-dev
  cluster:
    server: https://127.0.0.1:40213
    insecure-skip-tls-verify: true
contexts:
- name: kind-dev
  context:
    cluster: kind-dev
    user: kind-dev
    namespace: shop
users:
- name: kind-dev
  user:
    token: do-not-print-me
`), 0o600)
	if err != nil {
		log.Fatal(err)
	}

	cfg, err := kubeconfig.Load(kubeconfig.Options{Path: path}) // --kubeconfig
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("server:   ", cfg.Server)
	fmt.Println("namespace:", cfg.Namespace)
	fmt.Println("context:  ", cfg.Context)
	fmt.Println("auth:     ", cfg.Auth) // redacted: says "token", not the token

	// The request path: every request goes through this RoundTripper.
	if _, err := cfg.Transport(); err != nil {
		log.Fatal(err)
	}

	// A kubeconfig that is wrong says where, in one line.
	_, err = kubeconfig.Load(kubeconfig.Options{Path: path, Context: "prod"})
	var kerr *kubeconfig.Error
	if errors.As(err, &kerr) {
		fmt.Println("error:    ", kerr.Entry+":", kerr.Err)
	}
	// Output:
	// server:    https://127.0.0.1:40213
	// namespace: shop
	// context:   kind-dev
	// auth:      token
	// error:     context "prod": not found
}
