package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/kubeconfig"
)

// cluster is the API server the sync phase measures against: one up.sh started
// here (dir set), or one named by -kubeconfig (dir empty). Not safe for
// concurrent use; stop may be called more than once.
type cluster struct {
	kubeconfig string
	dir        string // up.sh's directory; "" for a given cluster
	keep       bool   // leave dir on disk after stop
	version    string // the server's gitVersion, e.g. v1.32.4
}

// startCluster runs ../.ci/cluster/up.sh in a new temporary directory, with the
// API server and etcd on free loopback ports so that a cluster already running
// on the defaults (6443, 2379) is left alone. The caller must call stop, also
// when startCluster fails: up.sh may have started etcd before failing.
func startCluster(ctx context.Context, keep bool) (*cluster, error) {
	dir, err := os.MkdirTemp("", "kubewire-sidebyside-")
	if err != nil {
		return nil, err
	}
	c := &cluster{dir: dir, keep: keep}
	api, err := freePorts(1)
	if err != nil {
		return c, err
	}
	etcd, err := freePorts(2) // up.sh puts etcd's peer port at ETCD_PORT+1
	if err != nil {
		return c, err
	}
	fmt.Fprintf(os.Stderr, "sidebyside: starting kube-apiserver on :%d, etcd on :%d, in %s\n", api, etcd, dir)
	cmd := exec.CommandContext(ctx, "bash", "../.ci/cluster/up.sh", dir)
	cmd.Env = append(os.Environ(), "API_PORT="+strconv.Itoa(api), "ETCD_PORT="+strconv.Itoa(etcd))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return c, fmt.Errorf("../.ci/cluster/up.sh: %w (logs in %s)", err, dir)
	}
	lines := strings.Fields(string(out))
	if len(lines) == 0 {
		return c, errors.New("../.ci/cluster/up.sh printed no kubeconfig path")
	}
	c.kubeconfig = lines[len(lines)-1]
	return c, nil
}

// pidDir is where the server's apiserver.pid is: up.sh's directory, or for a
// given cluster the kubeconfig's (up.sh writes both there).
func (c *cluster) pidDir() string {
	if c.dir != "" {
		return c.dir
	}
	return filepath.Dir(c.kubeconfig)
}

// stop stops what up.sh started (down.sh kills the pids in DIR/*.pid) and removes
// its directory; for a given cluster it does nothing.
func (c *cluster) stop() {
	if c == nil || c.dir == "" {
		return
	}
	cmd := exec.Command("bash", "../.ci/cluster/down.sh", c.dir)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "sidebyside: down.sh %s: %v; stop its processes by hand\n", c.dir, err)
		return
	}
	if !c.keep {
		os.RemoveAll(c.dir)
	}
	c.dir = ""
}

// prepare makes namespace ns hold (at least) pods pods, loading them with
// `clientgo load` unless they are there already, and returns how many it holds.
// It also reads the server's version.
func (c *cluster) prepare(ctx context.Context, clientgoBin, ns string, pods int) (int, error) {
	kc, err := kubeconfig.Load(kubeconfig.Options{Path: c.kubeconfig})
	if err != nil {
		return 0, err
	}
	api, err := apiclient.New(kc, apiclient.Options{})
	if err != nil {
		return 0, err
	}
	c.version = serverVersion(ctx, kc)
	if c.dir != "" { // up.sh built it from k8s.io/kubernetes at KUBE_VERSION
		ver := os.Getenv("KUBE_VERSION")
		if ver == "" {
			ver = "1.32.4" // up.sh's default
		}
		c.version = "kube-apiserver v" + ver
	}
	nsObj := map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}}
	if _, err := api.Resource(apiclient.Namespaces).Create(ctx, nsObj, apiclient.WriteOptions{}); err != nil && !apiclient.IsAlreadyExists(err) {
		return 0, fmt.Errorf("create namespace %s: %w", ns, err)
	}
	have, err := countPods(ctx, api, ns)
	if err != nil || have >= pods {
		return have, err
	}
	fmt.Fprintf(os.Stderr, "sidebyside: namespace %s holds %d pods; loading %d with clientgo load\n", ns, have, pods)
	if err := load(ctx, clientgoBin, c.kubeconfig, ns, pods); err != nil {
		return 0, err
	}
	if have, err = countPods(ctx, api, ns); err == nil && have < pods {
		err = fmt.Errorf("namespace %s holds %d pods after clientgo load, want %d", ns, have, pods)
	}
	return have, err
}

// load runs `clientgo load`. It creates load-000000 … load-N-1 and prints one
// line per failed create — after an earlier, partial load most of those say
// "already exists", which is what we want — and one per server warning (the pod
// has the same port in both containers): both are counted, not shown.
func load(ctx context.Context, clientgoBin, kubeconfig, ns string, pods int) error {
	cmd := exec.CommandContext(ctx, clientgoBin, "load", "-kubeconfig", kubeconfig, "-n", ns, "-count", strconv.Itoa(pods))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	exists, warnings, shown := 0, 0, 0
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		switch line := sc.Text(); {
		case strings.Contains(line, "already exists"):
			exists++
		case strings.Contains(line, "warnings.go"): // the server's warning, one per pod
			if warnings++; warnings == 1 {
				fmt.Fprintln(os.Stderr, "clientgo load:", line)
			}
		case shown < 5:
			fmt.Fprintln(os.Stderr, "clientgo load:", line)
			shown++
		}
	}
	if exists > 0 || warnings > 1 {
		fmt.Fprintf(os.Stderr, "sidebyside: clientgo load: %d pods were there already, %d server warnings\n", exists, warnings)
	}
	if err != nil {
		return fmt.Errorf("clientgo load: %w", err)
	}
	return nil
}

// cleanup deletes the pods of ns: DELETEs of the collection (the pods are bound
// to no node, so they go at once) until none is left: the server gives up on one
// request after a minute, some 30,000 pods into the deletion, and goes on with
// the next. The namespace stays: a server without a controller manager never
// finishes deleting one, and an empty namespace costs nothing.
func (c *cluster) cleanup(ctx context.Context, ns string) error {
	kc, err := kubeconfig.Load(kubeconfig.Options{Path: c.kubeconfig})
	if err != nil {
		return err
	}
	api, err := apiclient.New(kc, apiclient.Options{})
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "sidebyside: deleting the pods of namespace %s\n", ns)
	pods := api.Resource(apiclient.Pods).Namespace(ns)
	for try := 1; ; try++ {
		err := pods.DeleteCollection(ctx, apiclient.DeleteOptions{}, apiclient.ListOptions{})
		left, cerr := countPods(ctx, api, ns)
		switch {
		case cerr != nil:
			return cerr
		case left == 0:
			return nil
		case try == 10:
			return fmt.Errorf("delete the pods of %s: %d left after 10 tries: %v", ns, left, err)
		}
	}
}

// countPods counts the pods in ns, a page of 1,000 at a time.
func countPods(ctx context.Context, api *apiclient.Client, ns string) (int, error) {
	pods := api.Resource(apiclient.Pods).Namespace(ns)
	n := 0
	opts := apiclient.ListOptions{Limit: 1000}
	for {
		meta, err := pods.ListEach(ctx, opts, apiclient.DecodeOptions{}, func(*apiclient.Object) error { n++; return nil })
		if err != nil {
			return 0, fmt.Errorf("count pods in %s: %w", ns, err)
		}
		if meta.Continue == "" {
			return n, nil
		}
		opts.Continue = meta.Continue
	}
}

// serverVersion is GET /version's gitVersion, or "unknown".
func serverVersion(ctx context.Context, kc *kubeconfig.Config) string {
	rt, err := kc.Transport()
	if err != nil {
		return "unknown"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(kc.Server, "/")+"/version", nil)
	if err != nil {
		return "unknown"
	}
	resp, err := (&http.Client{Transport: rt}).Do(req)
	if err != nil {
		return "unknown"
	}
	defer resp.Body.Close()
	var v struct{ Major, Minor, GitVersion string }
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil || v.GitVersion == "" {
		return "unknown"
	}
	if strings.HasPrefix(v.GitVersion, "v0.0.0-") { // built from the module proxy, as up.sh does: no version stamped
		return fmt.Sprintf("v%s.%s (unstamped build)", v.Major, v.Minor)
	}
	return v.GitVersion
}

// freePorts finds n consecutive loopback ports nobody listens on. Another process
// may take them before up.sh does; then up.sh fails and says so.
func freePorts(n int) (int, error) {
	for try := 0; try < 50; try++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		first := l.Addr().(*net.TCPAddr).Port
		held := []net.Listener{l}
		for p := first + 1; p < first+n; p++ {
			if l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p)); err == nil {
				held = append(held, l)
			}
		}
		for _, l := range held {
			l.Close()
		}
		if len(held) == n {
			return first, nil
		}
	}
	return 0, fmt.Errorf("no %d consecutive free ports on 127.0.0.1", n)
}
