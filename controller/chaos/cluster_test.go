//go:build unix

package chaos_test

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient/kubeconfig"
	"github.com/kubewire/kubewire/apiclient/realtest"
)

// cluster is an etcd and a kube-apiserver that belong to one test: their own ports,
// their own data directory, killed when the test ends. The apiserver is started from
// the shared cluster's apiserver.sh (same binary, certificates and tokens, so the
// shared kubeconfig's credentials work) with its port, its etcd and flags of ours.
//
// Not safe for concurrent use: one goroutine at a time stops and starts it.
type cluster struct {
	dir    string // the shared cluster's directory (pki/ is there)
	script string // our copy of apiserver.sh
	log    string // the apiserver's output, every start appended
	url    string // https://127.0.0.1:PORT, straight to the apiserver
	cfg    *kubeconfig.Config
	tr     http.RoundTripper // for /readyz; its idle connections are closed after each use

	etcd, api *process
	restarts  int
}

// compactionInterval is how often the apiserver compacts etcd. The compactor keeps
// what was written since its previous run, so a resourceVersion is gone one to two
// intervals after it was current.
const compactionInterval = 2 * time.Second

// stopGrace is how long a clean stop (SIGTERM) may take before SIGKILL.
const stopGrace = 3 * time.Second

// process is one child process, in a process group of its own so that a kill
// reaches everything it started (process groups are why the files of the run
// build on unix only).
type process struct {
	name string
	log  string
	cmd  *exec.Cmd
	done chan struct{} // closed when it has exited
}

// The parts of the cluster's apiserver.sh that startCluster reads or rewrites.
var (
	execLine    = regexp.MustCompile(`exec "?([^" ]+)"?`)
	securePort  = regexp.MustCompile(`--secure-port "?\d+"?`)
	etcdServers = regexp.MustCompile(`--etcd-servers "?\S+"?`)
)

// startCluster starts etcd and the apiserver and waits for both to be ready, and
// returns them with the shared cluster's kubeconfig. It skips the test when
// KUBEWIRE_TEST_CLUSTER_DIR is unset; once it is set, a piece of the cluster
// directory that is missing or reads wrong fails the test (realtest.ClusterScript).
func startCluster(t *testing.T) (*cluster, *kubeconfig.Config) {
	t.Helper()
	dir, orig := realtest.ClusterScript(t, execLine, securePort, etcdServers)
	cfg, _ := realtest.Config(t)
	bin := execLine.FindSubmatch(orig)
	etcdBin := findEtcd(t, filepath.Dir(string(bin[1])))
	tmp := t.TempDir()
	etcdPort, peerPort, apiPort := realtest.FreePort(t), realtest.FreePort(t), realtest.FreePort(t)
	etcdURL := fmt.Sprintf("http://127.0.0.1:%d", etcdPort)
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", peerPort)

	script := securePort.ReplaceAllString(string(orig), fmt.Sprintf("--secure-port %d", apiPort))
	script = etcdServers.ReplaceAllString(script, "--etcd-servers "+etcdURL)
	// Later flags win: ours come last. No watch cache, so that a watch reads etcd and
	// an old resourceVersion gets 410 as soon as etcd has compacted it away.
	script = strings.TrimRight(script, " \n") + fmt.Sprintf(" --watch-cache=false --etcd-compaction-interval=%s\n", compactionInterval)
	c := &cluster{dir: dir, script: filepath.Join(tmp, "apiserver.sh"), url: fmt.Sprintf("https://127.0.0.1:%d", apiPort)}
	if err := os.WriteFile(c.script, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	mine := *cfg
	mine.Server = c.url
	c.cfg = &mine
	var err error
	if c.tr, err = c.cfg.Transport(); err != nil {
		t.Fatal(err)
	}

	if c.etcd, err = startProcess(t, "etcd", filepath.Join(tmp, "etcd.log"), etcdBin, "--name", "chaos",
		"--data-dir", filepath.Join(tmp, "etcd"),
		"--listen-client-urls", etcdURL, "--advertise-client-urls", etcdURL,
		"--listen-peer-urls", peerURL, "--initial-advertise-peer-urls", peerURL,
		"--initial-cluster", "chaos="+peerURL); err != nil {
		t.Fatal(err)
	}
	if err := waitReady(c.etcd, &http.Client{Transport: &http.Transport{}}, etcdURL+"/health"); err != nil {
		t.Fatal(err)
	}
	c.log = filepath.Join(tmp, "apiserver.log")
	if err := c.startAPI(t); err != nil {
		t.Fatal(err)
	}
	return c, cfg
}

// stopAPI begins to stop the apiserver and returns at once: a crash (SIGKILL) on
// even restarts, a clean stop (SIGTERM) on odd ones. startAPI waits for it to be
// gone.
func (c *cluster) stopAPI() {
	if c.restarts%2 == 0 {
		c.api.signal(syscall.SIGKILL)
		return
	}
	c.api.signal(syscall.SIGTERM)
}

// startAPI waits for a stopped apiserver to be gone, starts it again and waits for
// /readyz. A clean stop gets stopGrace, then SIGKILL, as a kubelet would do: left
// alone, kube-apiserver waits for open watches to end, 15 s and more. It may run on
// any goroutine: it reports failure as an error rather than through t.
func (c *cluster) startAPI(t *testing.T) error {
	if c.api != nil {
		select {
		case <-c.api.done:
		case <-time.After(stopGrace):
			c.api.kill()
		}
		c.restarts++
	}
	var err error
	if c.api, err = startProcess(t, "kube-apiserver", c.log, c.script); err != nil {
		return err
	}
	return waitReady(c.api, &http.Client{Transport: c.tr, Timeout: 2 * time.Second}, c.url+"/readyz")
}

// startProcess starts argv with its output appended to log, and kills it (its
// whole process group) when the test ends. Safe on any goroutine.
func startProcess(t *testing.T, name, log string, argv ...string) (*process, error) {
	f, err := os.OpenFile(log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	p := &process{name: name, log: log, cmd: exec.Command(argv[0], argv[1:]...), done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = f, f
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := p.cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	go func() { // owned by the process: ends when it exits, which kill makes sure of
		_ = p.cmd.Wait()
		f.Close()
		close(p.done)
	}()
	t.Cleanup(p.kill)
	return p, nil
}

func (p *process) signal(sig syscall.Signal) { _ = syscall.Kill(-p.cmd.Process.Pid, sig) }

// kill sends SIGKILL to the process group and waits for the process to exit. Safe
// to call again.
func (p *process) kill() {
	select {
	case <-p.done:
		return
	default:
	}
	p.signal(syscall.SIGKILL)
	<-p.done
}

// waitReady polls url until it answers 200, for at most 90 s; a process that exits
// meanwhile is an error that ends with the end of its log.
func waitReady(p *process, hc *http.Client, url string) error {
	defer hc.CloseIdleConnections()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(90 * time.Second)
	for {
		if resp, err := hc.Get(url); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-p.done:
			log, _ := os.ReadFile(p.log)
			return fmt.Errorf("%s exited:\n%s", p.name, tail(string(log), 3000))
		case <-deadline:
			return fmt.Errorf("%s: %s is not ready after 90 s", p.name, url)
		case <-tick.C:
		}
	}
}

// findEtcd looks for the etcd binary next to kube-apiserver, where .ci/cluster/up.sh
// builds both; the newest version wins.
func findEtcd(t *testing.T, dir string) string {
	t.Helper()
	found, _ := filepath.Glob(filepath.Join(dir, "etcd-v*"))
	sort.Strings(found)
	for i := len(found) - 1; i >= 0; i-- {
		if st, err := os.Stat(found[i]); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return found[i]
		}
	}
	t.Fatalf("no etcd-v* binary next to kube-apiserver in %s (.ci/cluster/up.sh builds one)", dir)
	return ""
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
