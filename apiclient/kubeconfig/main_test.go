package kubeconfig_test

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient/kubeconfig"
)

// The test binary is also the exec credential plugin the tests configure: when
// KUBEWIRE_FAKE_PLUGIN is set, TestMain acts as the plugin and exits instead of
// running tests. No shell script, no compiled helper, works wherever `go test` does.
//
// The plugin's environment (from the kubeconfig's exec env) steers it:
//
//	KUBEWIRE_FAKE_PLUGIN   token | cert | expiring | failing | silent | badjson |
//	                       nostatus | emptystatus | wrongversion |
//	                       background (token, then a "hold" child keeps stdout) |
//	                       hang (a "hold" child keeps stdout, and so does it) |
//	                       hold (reads FAKE_PLUGIN_HOLD to its end, then exits)
//	FAKE_PLUGIN_HOLD       a named pipe: hold blocks reading it until the test
//	                       writes and closes it, so a process lives as long as the
//	                       test says, without sleeping
//	FAKE_PLUGIN_STARTED    a named pipe hang writes a line to once it has started
//	FAKE_PLUGIN_RUNS       a file the plugin appends a line to per run; the run count
//	                       n makes the token "token-n" (unless FAKE_PLUGIN_TOKEN)
//	FAKE_PLUGIN_TOKEN      a fixed token to print
//	FAKE_PLUGIN_FIRST_TOKEN the token to print on the first run only
//	FAKE_PLUGIN_CERT/_KEY  PEM files to print as the client certificate (cert)
//	FAKE_PLUGIN_EXPIRY     expirationTimestamp to print (expiring)
//	FAKE_PLUGIN_SEEN       a file to write what the plugin received (args, exec info)
func TestMain(m *testing.M) {
	if mode := os.Getenv("KUBEWIRE_FAKE_PLUGIN"); mode != "" {
		os.Exit(fakePlugin(mode))
	}
	os.Exit(m.Run())
}

// pluginSeen is what the fake plugin writes to FAKE_PLUGIN_SEEN.
type pluginSeen struct {
	Args []string        `json:"args"`
	Info json.RawMessage `json:"info"`
}

func fakePlugin(mode string) int {
	run := 1
	if path := os.Getenv("FAKE_PLUGIN_RUNS"); path != "" {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Fprintln(f, "run")
		f.Close()
		data, _ := os.ReadFile(path)
		run = strings.Count(string(data), "\n")
	}
	info := os.Getenv("KUBERNETES_EXEC_INFO")
	if path := os.Getenv("FAKE_PLUGIN_SEEN"); path != "" {
		seen, _ := json.Marshal(pluginSeen{Args: os.Args[1:], Info: json.RawMessage(info)})
		if err := os.WriteFile(path, seen, 0o600); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	var req struct {
		APIVersion string `json:"apiVersion"`
	}
	if err := json.Unmarshal([]byte(info), &req); err != nil {
		fmt.Fprintln(os.Stderr, "fake plugin: bad KUBERNETES_EXEC_INFO:", err)
		return 1
	}

	token := os.Getenv("FAKE_PLUGIN_TOKEN")
	if first := os.Getenv("FAKE_PLUGIN_FIRST_TOKEN"); first != "" && run == 1 {
		token = first
	}
	if token == "" {
		token = fmt.Sprintf("token-%d", run)
	}
	status := map[string]string{"token": token}
	switch mode {
	case "hold":
		return hold()
	case "hang":
		if err := holdingChild(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if f, err := os.OpenFile(os.Getenv("FAKE_PLUGIN_STARTED"), os.O_WRONLY, 0); err == nil {
			fmt.Fprintln(f, "started")
			f.Close()
		}
		return hold()
	case "token", "background":
	case "expiring":
		status["expirationTimestamp"] = os.Getenv("FAKE_PLUGIN_EXPIRY")
	case "cert":
		cert, err1 := os.ReadFile(os.Getenv("FAKE_PLUGIN_CERT"))
		key, err2 := os.ReadFile(os.Getenv("FAKE_PLUGIN_KEY"))
		if err1 != nil || err2 != nil {
			fmt.Fprintln(os.Stderr, "fake plugin: cannot read cert/key")
			return 1
		}
		status = map[string]string{"clientCertificateData": string(cert), "clientKeyData": string(key)}
	case "failing":
		fmt.Println(`{"status": {"token": "leaked-stdout-secret"}}`)
		fmt.Fprintln(os.Stderr, "error: login failed:\n  account locked")
		return 3
	case "silent":
		return 0
	case "badjson":
		fmt.Println(`{"status": leaked-stdout-secret}`)
		return 0
	case "nostatus":
		fmt.Printf(`{"apiVersion": %q, "kind": "ExecCredential"}`+"\n", req.APIVersion)
		return 0
	case "emptystatus":
		status = map[string]string{}
	case "wrongversion":
		req.APIVersion = "client.authentication.k8s.io/v9"
	default:
		fmt.Fprintln(os.Stderr, "fake plugin: unknown mode", mode)
		return 2
	}
	out, _ := json.Marshal(map[string]any{"apiVersion": req.APIVersion, "kind": "ExecCredential", "status": status})
	fmt.Println(string(out))
	if mode == "background" {
		if err := holdingChild(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return 0
}

// holdingChild starts this binary again as a "hold" plugin with our stdout and
// stderr, and does not wait for it: the `sleep 120 &` of a shell script.
func holdingChild() error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	child := exec.Command(exe)
	child.Env = append(os.Environ(), "KUBEWIRE_FAKE_PLUGIN=hold")
	child.Stdout, child.Stderr = os.Stdout, os.Stderr
	return child.Start()
}

// hold reads FAKE_PLUGIN_HOLD to its end: it lives until the test lets it go (or
// kills it).
func hold() int {
	f, err := os.Open(os.Getenv("FAKE_PLUGIN_HOLD"))
	if err != nil {
		return 1
	}
	io.Copy(io.Discard, f)
	return 0
}

// fakePluginSetup is a kubeconfig whose user runs this test binary as its exec plugin
// (see TestMain), and the files the plugin leaves behind.
type fakePluginSetup struct {
	path string // the kubeconfig
	runs string // one line per plugin run
	seen string // what the last run received
}

type pluginOpts struct {
	server     string
	caPEM      []byte
	apiVersion string // default v1
	mode       string
	env        map[string]string
	extra      string // more exec fields, YAML flow style: `installHint: "..."`
}

// newFakePlugin writes the kubeconfig into a fresh directory.
func newFakePlugin(t testing.TB, o pluginOpts) *fakePluginSetup {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := &fakePluginSetup{path: filepath.Join(dir, "config"), runs: filepath.Join(dir, "runs"), seen: filepath.Join(dir, "seen")}
	if o.apiVersion == "" {
		o.apiVersion = kubeconfig.ExecAPIv1
	}
	env := map[string]string{
		"KUBEWIRE_FAKE_PLUGIN": o.mode, "FAKE_PLUGIN_RUNS": p.runs, "FAKE_PLUGIN_SEEN": p.seen,
		// Under -race a Go program sleeps a second at exit, waiting for late race
		// reports; the plugin has nothing to wait for.
		"GORACE": "atexit_sleep_ms=0",
	}
	for k, v := range o.env {
		env[k] = v
	}
	var envYAML []string
	for k, v := range env {
		envYAML = append(envYAML, "{name: "+strconv.Quote(k)+", value: "+strconv.Quote(v)+"}")
	}
	ca := ""
	if o.caPEM != nil {
		ca = "certificate-authority-data: " + b64(string(o.caPEM)) + ", "
	}
	if o.extra == "" {
		o.extra = "interactiveMode: Never, provideClusterInfo: true"
	}
	writeFile(t, dir, "config", `current-context: x
clusters:
- name: c
  cluster: {server: `+strconv.Quote(o.server)+`, `+ca+`extensions: [{name: client.authentication.k8s.io/exec, extension: {audience: test}}]}
contexts:
- name: x
  context: {cluster: c, user: plugin}
users:
- name: plugin
  user:
    exec: {apiVersion: `+o.apiVersion+`, command: `+strconv.Quote(exe)+`, args: [--flag, value], `+o.extra+`,
           env: [`+strings.Join(envYAML, ", ")+`]}
`)
	return p
}

// config loads the kubeconfig with the given clock.
func (p *fakePluginSetup) config(t testing.TB, clock *fakeClock) *kubeconfig.Config {
	t.Helper()
	cfg, err := load(t, kubeconfig.Options{Path: p.path})
	if err != nil {
		t.Fatal(err)
	}
	if clock != nil {
		cfg.Now = clock.Now
	}
	return cfg
}

// count is how many times the plugin ran.
func (p *fakePluginSetup) count(t testing.TB) int {
	t.Helper()
	data, err := os.ReadFile(p.runs)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(data), "\n")
}
