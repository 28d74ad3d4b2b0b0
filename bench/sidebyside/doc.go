// Command sidebyside measures `kubewire sync pods` next to client-go's typed pod
// informer (../clientgo) against the same server in one run, alternating the two,
// and prints the medians and ratios issue 9 sets goals for. Run it from bench/,
// through ../sidebyside.sh:
//
//	./sidebyside.sh                                   # the full run (10,000 pods, 100,000 events)
//	./sidebyside.sh -pods 500 -runs 2 -events 5000    # a quick check
//	./sidebyside.sh -kubeconfig F -n NS               # an existing cluster instead of a new one
//
// # What it does, in order
//
//  1. builds bin/kubewire (from ..) and bin/clientgo (from ./clientgo), the same way
//     (`go build -o`), and records their sizes (build.go);
//  2. sync (sync.go): starts kube-apiserver + etcd with ../.ci/cluster/up.sh in a
//     temporary directory on free ports, or takes the cluster -kubeconfig names
//     (cluster.go); creates namespace -n and loads -pods pods into it with
//     `clientgo load` unless it holds them already; then a warm-up round and -runs
//     rounds; a round runs each of -modes (default, LIST, watch-list,
//     metadata-only: the ways both programs list) as a triple, alternating
//     `kubewire --kubeconfig K sync pods -n NS --dump`,
//     `clientgo sync -kubeconfig K -n NS -dump` and the same with
//     `-strip-managed-fields` (the anchor a careful client-go user is: issue 42)
//     with the mode's environment and flags, then the LIST floor (floor.go: one
//     plain unpaged JSON LIST of the same pods, `sidebyside floor`), while it
//     measures the API server's CPU and RSS (proc.go); every dump must be the
//     same; deletes the pods with -cleanup; stops the cluster it started;
//  3. throughput (throughput.go): starts `clientgo serve` (-pods pods, -events
//     MODIFIED events, namespace "load") on a free port, waits for its "serving"
//     line, and runs -throughput-runs pairs of
//     `kubewire sync pods -n load --until-events E` and `clientgo sync -n load -until-events E`;
//  4. prints the report (report.go) and writes it to results/DATE-sidebyside.md
//     (bin/DATE-sidebyside.md when the counts are not the full defaults, so a quick
//     check never replaces a real result).
//
// # How it measures (measure.go)
//
// Each program is a direct child of this one — no shell, no `go run` — so the
// rusage wait4 returns is the program's own: peak RSS is ru_maxrss (KiB on Linux),
// CPU is ru_utime + ru_stime, wall time is from start to exit. The rest is what
// both programs print on stderr, in the same format (kubewire:
// ../controller/cli/sync.go; client-go: ../clientgo/main.go):
//
//	synced N objects in T; heap after GC X MiB
//	N events after sync in T
//
// The setup (namespace, pod count, server version) talks to the cluster through
// kubewire's own apiclient: the standard library has no kubeconfig reader, and
// kubectl is not on a machine that only has Go.
package main
