package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// syncResult is the sync phase: every run of both programs, in the order they ran.
type syncResult struct {
	kubeconfig string // "" when up.sh started the cluster
	server     string // the server's version
	serverPID  int    // its process, whose cost is measured; 0 when unknown
	ns         string
	pods       int // what the namespace held
	modes      []mode
	samples    []sample
	relist     []relistSample // the relist phase, on the same server
	// The command lines of the default mode; the others add their mode's
	// environment and flags.
	kubewireArgs, clientgoArgs []string
	floorArgs                  []string // the floor's (floor.go), once a round

	// The dump check: every run's --dump must equal the first kubewire run's.
	dumpLines int
	dumpSame  bool
	dumpNote  string // where they differ, when they do
}

// A mode is one way both programs list, measured side by side.
type mode struct {
	name     string
	env      []string // for both programs
	kwFlags  []string // kubewire's flags
	cgFlags  []string // clientgo's
	describe string   // for the report
}

// modes are the ways -modes may name, in the order each round runs them.
var modes = []mode{
	{name: "default", describe: "each program's default: kubewire's choice per server (listwatch), client-go's streaming list"},
	{name: "LIST", env: []string{"KUBE_FEATURE_WatchListClient=false"},
		describe: "`KUBE_FEATURE_WatchListClient=false`: both list with paged LIST requests"},
	{name: "watch-list", kwFlags: []string{"--watch-list"},
		describe: "kubewire `--watch-list` (always a streaming list); client-go's default, which is one"},
	{name: "metadata-only", kwFlags: []string{"--metadata-only"}, cgFlags: []string{"-metadata-only"},
		describe: "`--metadata-only`: PartialObjectMetadata (client-go's metadata informer)"},
}

// pickModes resolves -modes, a comma-separated list of mode names.
func pickModes(list string) ([]mode, error) {
	var out []mode
	for _, name := range strings.Split(list, ",") {
		i := slices.IndexFunc(modes, func(m mode) bool { return strings.EqualFold(m.name, strings.TrimSpace(name)) })
		if i < 0 {
			return nil, fmt.Errorf("-modes: no mode %q (have default, LIST, watch-list, metadata-only)", name)
		}
		out = append(out, modes[i])
	}
	return out, nil
}

// argv is a program's command line in mode m: through env when m sets any.
func (m mode) argv(base, flags []string) []string {
	argv := append(slices.Clone(base), flags...)
	if len(m.env) > 0 {
		argv = append(append([]string{"env"}, m.env...), argv...)
	}
	return argv
}

// syncPhase measures the sync of one namespace on a real API server: the
// cluster up, the pods loaded, then warm-up and measured rounds; a round runs
// every mode, kubewire first in every pair. The API server's cost is measured
// when its process is known (an up.sh cluster; -server-pid, or an
// apiserver.pid beside -kubeconfig). The cluster it started is stopped before
// it returns, so that the throughput phase has the machine to itself.
func syncPhase(ctx context.Context, cfg config, bins binaries) (*syncResult, error) {
	r := &syncResult{kubeconfig: cfg.kubeconfig, ns: cfg.ns}
	c := &cluster{kubeconfig: cfg.kubeconfig}
	if cfg.kubeconfig == "" {
		var err error
		c, err = startCluster(ctx, cfg.keep)
		defer c.stop()
		if err != nil {
			return nil, err
		}
	}
	var err error
	if r.pods, err = c.prepare(ctx, bins.clientgo, cfg.ns, cfg.pods); err != nil {
		return nil, err
	}
	r.server = c.version
	if r.modes, err = pickModes(cfg.modes); err != nil {
		return nil, err
	}
	r.serverPID = cfg.serverPID
	if r.serverPID == 0 {
		r.serverPID = serverPID(c.pidDir())
	}
	srv := serverMeter{pid: r.serverPID}
	r.kubewireArgs = []string{bins.kubewire, "--kubeconfig", c.kubeconfig, "sync", "pods", "-n", cfg.ns, "--dump"}
	r.clientgoArgs = []string{bins.clientgo, "sync", "-kubeconfig", c.kubeconfig, "-n", cfg.ns, "-dump"}

	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	r.floorArgs = floorArgs(self, c.kubeconfig, cfg.ns)

	// A round: each mode's three runs (kubewire, client-go with its defaults,
	// client-go with managedFields stripped), then the floor, one plain LIST of
	// the same pods.
	total := cfg.warmup + cfg.runs
	for i := 0; i < total; i++ {
		type run struct {
			prog, mode string
			argv       []string
		}
		var round []run
		for _, m := range r.modes {
			round = append(round,
				run{kubewire, m.name, m.argv(r.kubewireArgs, m.kwFlags)},
				run{clientgo, m.name, m.argv(r.clientgoArgs, m.cgFlags)},
				run{stripped, m.name, m.argv(r.clientgoArgs, append(slices.Clone(m.cgFlags), "-strip-managed-fields"))})
		}
		round = append(round, run{floor, floor, r.floorArgs})
		for _, p := range round {
			s, err := measure(ctx, p.prog, p.argv, cfg.timeout, srv)
			if err != nil {
				return nil, err
			}
			s.mode, s.warmup = p.mode, i < cfg.warmup
			label := fmt.Sprintf("run %d/%d", i+1-cfg.warmup, cfg.runs)
			if s.warmup {
				label = "warm-up"
			}
			fmt.Fprintf(os.Stderr, "sync %-9s %s\n", label, s)
			r.samples = append(r.samples, s)
		}
	}
	if cfg.relistRuns > 0 {
		if r.relist, err = relistRuns(ctx, cfg, bins, c); err != nil {
			return nil, err
		}
	}
	if cfg.cleanup {
		if err := c.cleanup(ctx, cfg.ns); err != nil {
			return nil, err
		}
	}
	c.stop()
	r.checkDumps()
	return r, nil
}

// checkDumps compares every run's dump with the first one. When they differ it
// writes the first kubewire and first client-go dumps to bin/ for diff(1).
func (r *syncResult) checkDumps() {
	first := r.samples[0]
	r.dumpLines, r.dumpSame = first.dumpLines, true
	for _, s := range r.samples[1:] {
		if s.prog == floor || s.dumpSum == first.dumpSum { // the floor dumps nothing
			continue
		}
		r.dumpSame = false
		r.dumpNote = fmt.Sprintf("%s's dump (%d lines) differs from %s's (%d lines) at line %d",
			s.prog, s.dumpLines, first.prog, first.dumpLines, firstDiffLine(first.dump, s.dump))
		break
	}
	if !r.dumpSame {
		written := map[string]bool{}
		for _, s := range r.samples {
			if s.prog != floor && !written[s.prog] {
				os.WriteFile(filepath.Join("bin", "dump-"+s.prog+".txt"), s.dump, 0o644)
				written[s.prog] = true
			}
		}
		r.dumpNote += "; see bin/dump-kubewire.txt and bin/dump-client-go.txt"
	}
}

// firstDiffLine is the 1-based number of the first line where a and b differ.
func firstDiffLine(a, b []byte) int {
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := range la {
		if i >= len(lb) || !bytes.Equal(la[i], lb[i]) {
			return i + 1
		}
	}
	return len(la) + 1
}
