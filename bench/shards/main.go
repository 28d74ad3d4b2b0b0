// Command shards measures kubewire's sharding (ManagerOptions.Sharding) against
// a real kube-apiserver: how reconcile throughput and per-replica memory change
// when one controller runs as 1, 2 or 4 replicas that split its objects.
//
//	cd bench && go run ./shards -kubeconfig ~/.kube/config -n bench10k -create \
//	    -objects 10000 -replicas 1,2,4 -workers 4 -delay 20ms
//
// The server must serve the shardSelector (Kubernetes 1.36+, feature gate
// ShardedListAndWatch) for the "filter" column to say "server"; without it the
// replicas filter on their side, which the table shows too.
//
// The controller is a stand-in: it reconciles ConfigMaps, and each reconcile
// sleeps -delay (a call to some slow system). One replica with -workers workers
// manages workers/delay reconciles a second; N replicas, each caching and
// reconciling its 1/N of the objects, should manage N times that, each holding
// 1/N of the cache.
//
// How a run works:
//
//  1. With -create, the namespace is made to hold exactly -objects ConfigMaps
//     (cm-00000, cm-00001, …, labelled kubewire.io/shardbench), created by a few
//     goroutines at once; objects.go. Without it they must be there already.
//  2. For each N of -replicas the program starts N copies of itself at once
//     (the hidden -child flag; child.go), so that every replica has a process
//     and a heap of its own, as replicas in a cluster do. Each joins the group
//     "shardbench", waits until it serves its final share, reconciles every
//     object of that share, measures its heap, and prints one JSON line.
//  3. When every replica has reported, the parent closes their stdin: they stop
//     together, and each deletes its Lease on the way out. The next N starts
//     once no Lease of the group is left.
//  4. The parent prints a Markdown table: throughput against one replica's,
//     heap per replica against one replica's.
//
// What is timed: from the first reconcile of any replica to the last of any,
// with the reconciles counted only once a replica serves its final share. While
// the replicas are still finding each other, a replica that starts first may
// for a moment think it is alone and take every object; its reconciler does no
// work then (it asks to be called again in a moment), so the start-up race
// costs the measurement neither time nor duplicate work. How long the race
// takes is shown apart: the "settled after" column.
//
// What is checked: the replicas' shares must add up to -objects, each cache
// must hold its replica's share and nothing else, and each object must be
// reconciled once. A row whose numbers break that is marked ⚠ in the table,
// and the lines under it say what went wrong.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/kubeconfig"
	"github.com/kubewire/kubewire/controller/sharding"
)

// group is the sharded group's name: every replica's Lease is
// "shardbench-shard-<identity>", labelled kubewire.io/shard-group=shardbench.
const group = "shardbench"

// config is the command line.
type config struct {
	kubeconfig string
	namespace  string
	objects    int
	replicas   []int
	workers    int
	delay      time.Duration
	create     bool
	payload    int
	timeout    time.Duration
	verbose    bool

	// Set only in a child (the hidden flags).
	child    bool
	identity string
	expect   int
}

// hidden are the flags the parent passes to its children; -h does not list them.
var hidden = map[string]bool{"child": true, "identity": true, "expect": true}

func parseFlags() (config, error) {
	var cfg config
	var replicas string
	flag.StringVar(&cfg.kubeconfig, "kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig `path` ($KUBECONFIG by default)")
	flag.StringVar(&cfg.namespace, "n", "bench10k", "`namespace` holding the ConfigMaps and the replicas' Leases")
	flag.IntVar(&cfg.objects, "objects", 10000, "number of ConfigMaps")
	flag.StringVar(&replicas, "replicas", "1,2,4", "replica counts to measure, comma-separated")
	flag.IntVar(&cfg.workers, "workers", 4, "workers per replica")
	flag.DurationVar(&cfg.delay, "delay", 20*time.Millisecond, "how long each reconcile takes")
	flag.BoolVar(&cfg.create, "create", false, "create the namespace and the ConfigMaps first (idempotent)")
	flag.IntVar(&cfg.payload, "payload", 1024, "`bytes` of data in each ConfigMap that -create makes")
	flag.DurationVar(&cfg.timeout, "timeout", 10*time.Minute, "give up on a replica count after this long")
	flag.BoolVar(&cfg.verbose, "v", false, "log the replicas' membership changes and hand-overs on stderr")
	flag.BoolVar(&cfg.child, "child", false, "run as one replica (internal)")
	flag.StringVar(&cfg.identity, "identity", "", "the replica's identity (internal)")
	flag.IntVar(&cfg.expect, "expect", 0, "the number of replicas in the group (internal)")
	flag.Usage = func() {
		out := flag.CommandLine.Output()
		fmt.Fprintf(out, "usage: %s [flags]\n", os.Args[0])
		flag.VisitAll(func(f *flag.Flag) {
			if hidden[f.Name] {
				return
			}
			name, usage := flag.UnquoteUsage(f)
			fmt.Fprintf(out, "  -%s\n    \t%s", strings.TrimSpace(f.Name+" "+name), usage)
			if f.DefValue != "" && f.DefValue != "false" {
				fmt.Fprintf(out, " (default %s)", f.DefValue)
			}
			fmt.Fprintln(out)
		})
	}
	flag.Parse()
	for _, s := range strings.Split(replicas, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return cfg, fmt.Errorf("-replicas: %q is not a positive number", s)
		}
		cfg.replicas = append(cfg.replicas, n)
	}
	switch {
	case cfg.objects < 1:
		return cfg, errors.New("-objects must be positive")
	case cfg.workers < 1:
		return cfg, errors.New("-workers must be positive")
	case cfg.child && (cfg.identity == "" || cfg.expect < 1):
		return cfg, errors.New("-child needs -identity and -expect")
	}
	return cfg, nil
}

func main() {
	cfg, err := parseFlags()
	if err != nil {
		fmt.Fprintln(os.Stderr, "shards:", err)
		os.Exit(2)
	}
	// Ctrl-C reaches the children too (they are in our process group): each
	// stops cleanly and deletes its Lease.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if cfg.child {
		err = runChild(ctx, cfg)
	} else {
		err = runParent(ctx, cfg)
	}
	if err != nil {
		who := "shards"
		if cfg.child {
			who += " " + cfg.identity
		}
		fmt.Fprintf(os.Stderr, "%s: %v\n", who, err)
		os.Exit(1)
	}
}

// newClient loads the kubeconfig and builds a client, as the kubewire command
// does (controller/cli/connect.go). Every replica builds its own: a Manager
// hooks its metrics into the client it is given.
func newClient(cfg config, log *slog.Logger) (*apiclient.Client, error) {
	kc, err := kubeconfig.Load(kubeconfig.Options{Path: cfg.kubeconfig})
	if err != nil {
		return nil, err
	}
	return apiclient.New(kc, apiclient.Options{Log: log})
}

// result is what a child reports, one JSON line on its stdout.
type result struct {
	Identity string `json:"identity"`
	// Cached is how many ConfigMaps its informer holds: its share.
	Cached int `json:"cached"`
	// InShare is how many of them are in the replica's final share: all of
	// them, unless the cache kept objects of ranges it gave up.
	InShare int `json:"in_share"`
	// Reconciled counts the distinct objects it reconciled, Reconciles every
	// reconcile (the same object twice counts twice).
	Reconciled int `json:"reconciled"`
	Reconciles int `json:"reconciles"`
	// The first and last reconcile, and when it began to serve its final share.
	FirstReconcile int64 `json:"first_reconcile_unix_ns"`
	LastReconcile  int64 `json:"last_reconcile_unix_ns"`
	Settled        int64 `json:"settled_unix_ns"`
	// HeapBytes is the live heap after a GC, with the cache full.
	HeapBytes uint64 `json:"heap_bytes"`
	// CPUSeconds is the process's user and system time from its start until
	// it settled: joining, and listing its share (decoding all the objects when
	// it filters them itself, its share alone when the server does).
	CPUSeconds float64 `json:"cpu_seconds"`
	// ServerSide says whether the API server filtered the list and watch for
	// it (shardSelector) rather than the replica itself.
	ServerSide bool `json:"server_side"`
	// Status is what the Manager's /readyz would say.
	Status string `json:"status"`
}

// run is the outcome of one replica count.
type run struct {
	n       int
	started time.Time
	results []result
}

func runParent(ctx context.Context, cfg config) error {
	c, err := newClient(cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		return err
	}
	if cfg.create {
		if err := ensureObjects(ctx, c, cfg); err != nil {
			return err
		}
	}
	var runs []run
	for _, n := range cfg.replicas {
		if err := waitNoLeases(ctx, c, cfg.namespace); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "shards: %d replica(s), %d objects, %d workers each, %s a reconcile\n", n, cfg.objects, cfg.workers, cfg.delay)
		r, err := runReplicas(ctx, cfg, n)
		if err != nil {
			return fmt.Errorf("%d replica(s): %w", n, err)
		}
		runs = append(runs, r)
	}
	if err := waitNoLeases(ctx, c, cfg.namespace); err != nil {
		return err
	}
	printReport(ctx, c, cfg, runs)
	return nil
}

// runReplicas starts n children at once, collects their results, then stops
// them all together and waits for them to exit.
func runReplicas(ctx context.Context, cfg config, n int) (run, error) {
	exe, err := os.Executable()
	if err != nil {
		return run{}, err
	}
	type child struct {
		cmd   *exec.Cmd
		stdin io.WriteCloser
		out   *bufio.Scanner
	}
	var children []child
	// stopAll closes every child's stdin, its signal to stop, and waits for it.
	stopAll := func() error {
		for _, ch := range children {
			ch.stdin.Close()
		}
		var errs []error
		for _, ch := range children {
			if err := ch.cmd.Wait(); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", ch.cmd.Args[len(ch.cmd.Args)-1], err))
			}
		}
		return errors.Join(errs...)
	}

	started := time.Now()
	for i := 1; i <= n; i++ {
		id := "r" + strconv.Itoa(i)
		cmd := exec.Command(exe,
			"-kubeconfig", cfg.kubeconfig, "-n", cfg.namespace,
			"-workers", strconv.Itoa(cfg.workers), "-delay", cfg.delay.String(),
			"-timeout", cfg.timeout.String(), "-v="+strconv.FormatBool(cfg.verbose),
			"-child", "-expect", strconv.Itoa(n), "-identity", id) // the identity last: stopAll names the child by it
		cmd.Stderr = os.Stderr
		stdin, err := cmd.StdinPipe()
		if err != nil {
			return run{}, errors.Join(err, stopAll())
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			return run{}, errors.Join(err, stopAll())
		}
		if err := cmd.Start(); err != nil {
			return run{}, errors.Join(err, stopAll())
		}
		children = append(children, child{cmd, stdin, bufio.NewScanner(stdout)})
	}

	// Each child prints one line when done, or exits without one when it fails
	// (its error is on stderr).
	// One failure stops the others at once rather than at their timeout.
	results := make([]result, n)
	errs := make([]error, n)
	var failOnce sync.Once
	fail := func() {
		failOnce.Do(func() {
			for _, ch := range children {
				ch.stdin.Close()
			}
		})
	}
	var wg sync.WaitGroup
	for i, ch := range children {
		wg.Go(func() {
			if !ch.out.Scan() {
				errs[i] = fmt.Errorf("replica r%d exited without a result", i+1)
				fail()
				return
			}
			if err := json.Unmarshal(ch.out.Bytes(), &results[i]); err != nil {
				errs[i] = fmt.Errorf("replica r%d: %w", i+1, err)
				fail()
			}
		})
	}
	wg.Wait()
	err = errors.Join(errors.Join(errs...), stopAll())
	if ctx.Err() != nil {
		err = errors.Join(err, ctx.Err())
	}
	return run{n: n, started: started, results: results}, err
}

// waitNoLeases waits until the group has no Lease left in the namespace: the
// replicas of the last run delete theirs as they stop. A Lease left behind
// (a replica killed, not stopped) would count as a live member of the next run
// for a lease duration, so after 30 s it is deleted: no replica of ours runs.
func waitNoLeases(ctx context.Context, c *apiclient.Client, ns string) error {
	leases := c.Resource(apiclient.Leases).Namespace(ns)
	sel := apiclient.ListOptions{LabelSelector: sharding.GroupLabel + "=" + group}
	deadline := time.Now().Add(30 * time.Second)
	for {
		list, err := leases.List(ctx, sel)
		if err != nil {
			return fmt.Errorf("list the group's Leases: %w", err)
		}
		if len(list.Items) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			for _, l := range list.Items {
				fmt.Fprintf(os.Stderr, "shards: deleting the Lease %s, left behind by a replica that did not stop cleanly\n", l.Metadata.Name)
				if err := leases.Delete(ctx, l.Metadata.Name, apiclient.DeleteOptions{}); err != nil && !apiclient.IsNotFound(err) {
					return err
				}
			}
			continue
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// printReport prints the machine, the server and the table.
func printReport(ctx context.Context, c *apiclient.Client, cfg config, runs []run) {
	server := "unknown"
	if v, err := c.ServerVersion(ctx); err == nil {
		server = v.GitVersion
	}
	fmt.Printf("date: %s\n", time.Now().Format(time.RFC3339))
	fmt.Printf("go: %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Printf("cpu: %s, %d cores\n", cpuModel(), runtime.NumCPU())
	fmt.Printf("kube-apiserver: %s\n", server)
	fmt.Printf("objects: %d ConfigMaps in %s; %d workers per replica; %s a reconcile (one replica's ceiling: %.0f/s)\n\n",
		cfg.objects, cfg.namespace, cfg.workers, cfg.delay, float64(cfg.workers)/cfg.delay.Seconds())

	fmt.Println("| replicas | reconciles/s | × of 1 replica | scaling efficiency | heap per replica (MiB, max) | heap ÷ 1-replica heap | CPU s to settle, per replica (max) | cached objects per replica (max) | filter | settled after |")
	fmt.Println("|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|")
	var base *summary // one replica's, the yardstick; nil if -replicas has no 1
	for _, r := range runs {
		if r.n == 1 {
			s := summarize(r, cfg.objects)
			base = &s
			break
		}
	}
	for _, r := range runs {
		s := summarize(r, cfg.objects)
		ratio, heapRatio, eff := "–", "–", "–"
		if base != nil {
			x := s.rate / base.rate
			ratio = fmt.Sprintf("%.2f×", x)
			eff = fmt.Sprintf("%.0f%%", 100*x/float64(r.n))
			heapRatio = fmt.Sprintf("%.2f", float64(s.heapMax)/float64(base.heapMax))
		}
		mark := "" // the warnings below say what is wrong with the row
		if len(s.warnings) > 0 {
			mark = " ⚠"
		}
		fmt.Printf("| %d%s | %.0f | %s | %s | %.1f | %s | %.2f | %d | %s | %.1f s |\n",
			r.n, mark, s.rate, ratio, eff, mib(s.heapMax), heapRatio, s.cpuMax, s.cachedMax, s.filter, s.settle.Seconds())
	}

	// The raw numbers, and what looks wrong in them.
	fmt.Println()
	for _, r := range runs {
		s := summarize(r, cfg.objects)
		fmt.Printf("%d replica(s): %.2f s from first to last reconcile; heap median %.1f MiB; cached %d, reconciled %d in all\n",
			r.n, s.span.Seconds(), mib(s.heapMedian), s.cachedSum, s.reconciledSum)
		for _, res := range r.results {
			fmt.Printf("  %s: cached %d (%d in its share), reconciled %d (%d reconciles), heap %.1f MiB, settled after %.2f s: %s\n",
				res.Identity, res.Cached, res.InShare, res.Reconciled, res.Reconciles, mib(res.HeapBytes),
				time.Unix(0, res.Settled).Sub(r.started).Seconds(), res.Status)
		}
		for _, w := range s.warnings {
			fmt.Printf("  warning: %s\n", w)
		}
		for _, n := range s.notes {
			fmt.Printf("  note: %s\n", n)
		}
	}
}

// summary is one run reduced to the table's numbers.
type summary struct {
	rate                 float64 // reconciles a second, all replicas together
	span, settle         time.Duration
	heapMax, heapMedian  uint64
	cpuMax               float64
	cachedMax, cachedSum int
	reconciledSum        int
	filter               string
	warnings             []string
	notes                []string
}

func summarize(r run, objects int) summary {
	var s summary
	var first, last, settled int64
	var heaps []uint64
	server := 0
	for i, res := range r.results {
		if i == 0 || res.FirstReconcile < first {
			first = res.FirstReconcile
		}
		last = max(last, res.LastReconcile)
		settled = max(settled, res.Settled)
		heaps = append(heaps, res.HeapBytes)
		s.cpuMax = max(s.cpuMax, res.CPUSeconds)
		s.cachedMax = max(s.cachedMax, res.Cached)
		s.cachedSum += res.Cached
		s.reconciledSum += res.Reconciled
		if res.ServerSide {
			server++
		}
		if res.Cached != res.InShare {
			s.warnings = append(s.warnings, fmt.Sprintf("%s caches %d objects outside its share", res.Identity, res.Cached-res.InShare))
		}
		if res.Reconciles > res.Reconciled {
			// Not a fault: one replica reconciling an object twice (an add that
			// reached its queue after the hand-over had queued the object) is a
			// level-based reconcile's repeat, not two replicas at once.
			s.notes = append(s.notes, fmt.Sprintf("%s reconciled %d objects twice", res.Identity, res.Reconciles-res.Reconciled))
		}
	}
	slices.Sort(heaps)
	s.heapMax, s.heapMedian = heaps[len(heaps)-1], heaps[len(heaps)/2]
	if len(heaps)%2 == 0 {
		s.heapMedian = (heaps[len(heaps)/2-1] + heaps[len(heaps)/2]) / 2
	}
	s.span = time.Duration(last - first)
	s.rate = float64(objects) / s.span.Seconds()
	s.settle = time.Unix(0, settled).Sub(r.started)
	switch server {
	case len(r.results):
		s.filter = "server (shardSelector)"
	case 0:
		s.filter = "client"
	default:
		s.filter = fmt.Sprintf("mixed: server for %d of %d", server, len(r.results))
	}
	if s.cachedSum != objects {
		s.warnings = append(s.warnings, fmt.Sprintf("the replicas cached %d objects together, not %d: shares overlap or miss some", s.cachedSum, objects))
	}
	if s.reconciledSum != objects {
		s.warnings = append(s.warnings, fmt.Sprintf("the replicas reconciled %d distinct objects together, not %d", s.reconciledSum, objects))
	}
	return s
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// cpuModel is /proc/cpuinfo's first "model name", or "" off Linux.
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
