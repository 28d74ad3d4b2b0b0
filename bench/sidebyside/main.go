package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"
)

// config is the command line. The defaults are the full run issue 9 reports.
type config struct {
	kubeconfig string // "" starts a cluster with up.sh
	ns         string
	pods       int
	runs       int // measured pairs in the sync phase
	warmup     int // pairs run first and left out of the medians
	events     int
	tputRuns   int    // measured pairs in the throughput phase
	serveAddr  string // "" starts clientgo serve; else one already listening there
	sync, tput bool
	relistRuns int // measured pairs of the relist phase, after sync on the same server (0: none)
	out        string
	timeout    time.Duration // one program run
	keep       bool          // keep up.sh's directory
	modes      string        // the sync phase's modes (sync.go), comma-separated
	serverPID  int           // the kube-apiserver to measure; 0: found from the cluster's directory
	cleanup    bool          // delete the namespace's pods after the sync phase
}

// full is the configuration the committed results come from.
var full = config{ns: "sidebyside", pods: 10000, runs: 7, warmup: 1, events: 100000, tputRuns: 3, relistRuns: 3, modes: "default,LIST,metadata-only"}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "floor" { // a child of the sync phase (floor.go)
		if err := runFloor(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "sidebyside:", err)
			os.Exit(1)
		}
		return
	}
	cfg := full
	flag.StringVar(&cfg.kubeconfig, "kubeconfig", "", "use this cluster instead of starting one with ../.ci/cluster/up.sh")
	flag.StringVar(&cfg.ns, "n", cfg.ns, "namespace the sync phase loads and syncs")
	flag.IntVar(&cfg.pods, "pods", cfg.pods, "pods in the namespace (and in clientgo serve's)")
	flag.IntVar(&cfg.runs, "runs", cfg.runs, "sync: measured runs of each program, alternating")
	flag.IntVar(&cfg.warmup, "warmup", cfg.warmup, "sync: runs of each program first, not counted")
	flag.IntVar(&cfg.events, "events", cfg.events, "throughput: MODIFIED events clientgo serve streams")
	flag.IntVar(&cfg.tputRuns, "throughput-runs", cfg.tputRuns, "throughput: measured runs of each program, alternating")
	flag.StringVar(&cfg.serveAddr, "serve", "", "throughput: use the clientgo serve listening at this address (namespace load, -pods and -events as given)")
	flag.BoolVar(&cfg.sync, "sync", true, "run the sync phase")
	flag.IntVar(&cfg.relistRuns, "relist-runs", cfg.relistRuns, "relist (after sync, same server): measured pairs, 0 for none")
	flag.BoolVar(&cfg.tput, "throughput", true, "run the throughput phase")
	flag.StringVar(&cfg.out, "out", "", "report file (default results/DATE-sidebyside.md, bin/… for counts below the full run)")
	flag.DurationVar(&cfg.timeout, "timeout", 15*time.Minute, "limit for one program run")
	flag.BoolVar(&cfg.keep, "keep", false, "keep the directory of the cluster up.sh started (it is stopped all the same)")
	flag.StringVar(&cfg.modes, "modes", cfg.modes, "sync: the ways both programs list, each round in this order (default, LIST, watch-list, metadata-only)")
	flag.IntVar(&cfg.serverPID, "server-pid", 0, "sync: the kube-apiserver process whose CPU and RSS each run costs (default: apiserver.pid in up.sh's directory, or beside -kubeconfig)")
	flag.BoolVar(&cfg.cleanup, "cleanup", false, "sync: delete the namespace's pods afterwards (a large load on a shared server)")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "sidebyside: unexpected arguments %q\n", flag.Args())
		os.Exit(2)
	}
	// Interrupted, run returns through its defers: the cluster and the stand-in
	// server are stopped either way.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, cfg)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "sidebyside:", err)
		os.Exit(1)
	}
}

// run is the whole measurement: build, sync phase, throughput phase, report.
func run(ctx context.Context, cfg config) error {
	if _, err := os.Stat(filepath.Join("clientgo", "main.go")); err != nil {
		return errors.New("run from bench/ (./sidebyside.sh does)")
	}
	if cfg.runs < 1 || cfg.tputRuns < 1 || cfg.pods < 1 || cfg.events < 1 || cfg.relistRuns < 0 {
		return errors.New("-pods, -runs, -events and -throughput-runs must be at least 1, -relist-runs at least 0")
	}
	rep := &report{cfg: cfg, machine: describeMachine(ctx), loadBefore: loadAverage()}
	bins, err := build(ctx)
	if err != nil {
		return err
	}
	rep.bins = bins
	if cfg.sync {
		if rep.sync, err = syncPhase(ctx, cfg, bins); err != nil {
			return err
		}
	}
	if cfg.tput {
		if rep.tput, err = throughputPhase(ctx, cfg, bins); err != nil {
			return err
		}
	}
	rep.loadAfter = loadAverage()
	text := rep.markdown(time.Now())
	fmt.Print(text)
	out := cfg.out
	if out == "" {
		dir := "results"
		if cfg.pods < full.pods || cfg.runs < full.runs || cfg.events < full.events || cfg.tputRuns < full.tputRuns || cfg.relistRuns < full.relistRuns || !cfg.sync || !cfg.tput {
			dir = "bin"
		}
		out = filepath.Join(dir, time.Now().Format("2006-01-02")+"-sidebyside.md")
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(out, []byte(text), 0o644); err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "sidebyside: report written to", out)
	return nil
}
