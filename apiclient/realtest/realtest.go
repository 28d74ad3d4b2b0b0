package realtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/kubeconfig"
)

// SkipReason is why an integration test is skipped when there is no server.
const SkipReason = "KUBEWIRE_TEST_KUBECONFIG is not set: no real API server to test against (.ci/run starts one)"

// Path returns the kubeconfig path in KUBEWIRE_TEST_KUBECONFIG, and skips the test
// when it is unset. The cluster's other kubeconfigs (kubeconfig-cert) are in the
// same directory.
func Path(t testing.TB) string {
	t.Helper()
	path := os.Getenv("KUBEWIRE_TEST_KUBECONFIG")
	if path == "" {
		t.Skip(SkipReason)
	}
	return path
}

// Config loads the kubeconfig of Path and returns it with its path.
func Config(t testing.TB) (*kubeconfig.Config, string) {
	t.Helper()
	path := Path(t)
	cfg, err := kubeconfig.Load(kubeconfig.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	return cfg, path
}

// Client returns a client with opts for the server of Config, and the kubeconfig
// path (for code under test that loads it itself).
func Client(t testing.TB, opts apiclient.Options) (*apiclient.Client, string) {
	t.Helper()
	cfg, path := Config(t)
	c, err := apiclient.New(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c, path
}

// Namespace creates a namespace named Name(prefix) and deletes it when the test
// and its subtests have finished. One request each way; the deletion's error is
// ignored (the test is over, and the namespace stays Terminating anyway).
func Namespace(t testing.TB, c *apiclient.Client, prefix string) string {
	t.Helper()
	ns := Name(prefix)
	body := fmt.Sprintf(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":%q}}`, ns)
	if _, err := c.Resource(apiclient.Namespaces).Create(context.Background(), []byte(body), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.Resource(apiclient.Namespaces).Delete(context.Background(), ns, apiclient.DeleteOptions{})
	})
	return ns
}

// Name returns prefix, "-" and 8 random hex digits: a name no other run has used,
// for a namespace or anything else on the shared server (a Lease).
func Name(prefix string) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return prefix + "-" + hex.EncodeToString(b)
}

// ClusterDir returns KUBEWIRE_TEST_CLUSTER_DIR, the directory .ci/cluster/up.sh
// made (apiserver.sh, pki/, the kubeconfigs), and skips the test when it is unset.
func ClusterDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("KUBEWIRE_TEST_CLUSTER_DIR")
	if dir == "" {
		t.Skip("KUBEWIRE_TEST_CLUSTER_DIR is not set: no apiserver.sh and pki/ to start a private server from (.ci/run sets it)")
	}
	return dir
}

// ClusterScript returns ClusterDir and the apiserver.sh in it, for a test that
// starts a kube-apiserver of its own from that script. It skips the test when
// KUBEWIRE_TEST_CLUSTER_DIR is unset. Once the variable is set the test is meant
// to run, so anything missing fails it, saying what: KUBEWIRE_TEST_KUBECONFIG, a
// readable apiserver.sh, a match in it for each of patterns (what the test
// rewrites). A change to .ci/cluster/up.sh must not switch such a test off in
// silence.
func ClusterScript(t testing.TB, patterns ...*regexp.Regexp) (dir string, script []byte) {
	t.Helper()
	dir = ClusterDir(t)
	if os.Getenv("KUBEWIRE_TEST_KUBECONFIG") == "" {
		t.Fatalf("KUBEWIRE_TEST_CLUSTER_DIR is set (%s) but KUBEWIRE_TEST_KUBECONFIG is not; .ci/run sets both", dir)
	}
	script, err := os.ReadFile(filepath.Join(dir, "apiserver.sh"))
	if err != nil {
		t.Fatalf("KUBEWIRE_TEST_CLUSTER_DIR has no apiserver.sh to start a kube-apiserver from (.ci/cluster/up.sh writes one): %v", err)
	}
	var missing []string
	for _, re := range patterns {
		if !re.Match(script) {
			missing = append(missing, re.String())
		}
	}
	if len(missing) > 0 {
		t.Fatalf("%s/apiserver.sh has no match for %s: the test cannot rewrite it (has .ci/cluster/up.sh changed?)", dir, strings.Join(missing, ", "))
	}
	return dir, script
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago, for a private
// kube-apiserver or etcd started from ClusterDir. Another process may take it
// before the caller listens; the caller's start then fails, which it reports.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
