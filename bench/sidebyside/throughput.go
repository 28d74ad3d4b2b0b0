package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// serveNS is the namespace clientgo serve answers for.
const serveNS = "load"

// tputResult is the throughput phase: every run of both programs, in order.
type tputResult struct {
	addr                       string // where clientgo serve listened
	started                    bool   // by us (else -serve named it)
	pods, events               int
	samples                    []sample
	kubewireArgs, clientgoArgs []string
}

// throughputPhase measures how fast each program applies a long watch stream:
// clientgo serve answers the LIST with `pods` pods and the watch with `events`
// MODIFIED events, as fast as the client reads; each program syncs, then counts
// events until it has seen them all. The runs alternate, kubewire first.
func throughputPhase(ctx context.Context, cfg config, bins binaries) (*tputResult, error) {
	r := &tputResult{addr: cfg.serveAddr, pods: cfg.pods, events: cfg.events}
	if r.addr == "" {
		addr, stop, err := startServe(ctx, bins.clientgo, cfg.pods, cfg.events)
		if err != nil {
			return nil, err
		}
		defer stop()
		r.addr, r.started = addr, true
	}
	kc := filepath.Join("bin", "serve.kubeconfig")
	if err := writeServeKubeconfig(kc, "http://"+r.addr); err != nil {
		return nil, err
	}
	until := strconv.Itoa(cfg.events)
	// client-go v0.35 and later, and kubewire, start with a streaming list
	// (WatchListClient), which clientgo serve does not implement; without the gate
	// off, client-go's informer waits a whole watch timeout before it falls back to
	// LIST (kubewire falls back at serve's first MODIFIED). Both take the same
	// switch, so that both list alike. env execs the program in its own place, so
	// the rusage is still the program's.
	r.kubewireArgs = []string{"env", "KUBE_FEATURE_WatchListClient=false", bins.kubewire, "--kubeconfig", kc, "sync", "pods", "-n", serveNS, "--until-events", until}
	r.clientgoArgs = []string{"env", "KUBE_FEATURE_WatchListClient=false", bins.clientgo, "sync", "-kubeconfig", kc, "-n", serveNS, "-until-events", until}
	for i := 0; i < cfg.tputRuns; i++ {
		for _, p := range []struct {
			name string
			argv []string
		}{{kubewire, r.kubewireArgs}, {clientgo, r.clientgoArgs}} {
			s, err := measure(ctx, p.name, p.argv, cfg.timeout, serverMeter{})
			if err != nil {
				return nil, err
			}
			if s.events != cfg.events {
				return nil, fmt.Errorf("%s: no \"%d events after sync\" line", strings.Join(p.argv, " "), cfg.events)
			}
			fmt.Fprintf(os.Stderr, "throughput run %d/%d %s\n", i+1, cfg.tputRuns, s)
			r.samples = append(r.samples, s)
		}
	}
	return r, nil
}

// startServe starts `clientgo serve` on a free loopback port and returns once it
// listens: it builds its whole LIST body and watch stream first (about 40 s for
// 100,000 events on 2 cores) and then prints "serving …". stop kills it and
// waits for it. The goroutine that waits for it is owned here; it returns when
// serve exits.
func startServe(ctx context.Context, clientgoBin string, pods, events int) (addr string, stop func(), err error) {
	port, err := freePorts(1)
	if err != nil {
		return "", nil, err
	}
	addr = "127.0.0.1:" + strconv.Itoa(port)
	serving := &lineWatch{prefix: "serving ", seen: make(chan struct{})}
	cmd := exec.Command(clientgoBin, "serve", "-addr", addr, "-n", serveNS,
		"-pods", strconv.Itoa(pods), "-events", strconv.Itoa(events), "-template", filepath.Join("clientgo", "testdata", "pod.json"))
	cmd.Stderr = serving
	fmt.Fprintf(os.Stderr, "sidebyside: starting clientgo serve on %s (%d pods, %d events); it builds its stream first\n", addr, pods, events)
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop = func() {
		cmd.Process.Kill()
		<-exited
	}
	select {
	case <-serving.seen:
		return addr, stop, nil
	case err = <-exited:
		return "", nil, fmt.Errorf("clientgo serve exited before serving: %v", err)
	case <-time.After(10 * time.Minute):
		err = errors.New("clientgo serve: not serving after 10 minutes")
	case <-ctx.Done():
		err = ctx.Err()
	}
	stop()
	return "", nil, err
}

// lineWatch is clientgo serve's stderr: it copies each line to ours and closes
// seen at the first line that starts with prefix. exec's copying goroutine is
// its only writer.
type lineWatch struct {
	prefix  string
	seen    chan struct{}
	closed  bool // seen is closed
	partial []byte
}

func (w *lineWatch) Write(p []byte) (int, error) {
	w.partial = append(w.partial, p...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := string(w.partial[:i])
		w.partial = w.partial[i+1:]
		fmt.Fprintln(os.Stderr, "clientgo serve:", line)
		if strings.HasPrefix(line, w.prefix) && !w.closed {
			close(w.seen)
			w.closed = true
		}
	}
}

// writeServeKubeconfig points a kubeconfig at clientgo serve: plain HTTP, a user
// with no credentials, namespace load.
func writeServeKubeconfig(path, server string) error {
	return os.WriteFile(path, []byte(`apiVersion: v1
kind: Config
clusters:
- name: serve
  cluster:
    server: `+server+`
contexts:
- name: serve
  context:
    cluster: serve
    user: anonymous
    namespace: `+serveNS+`
current-context: serve
users:
- name: anonymous
  user: {}
`), 0o644)
}
