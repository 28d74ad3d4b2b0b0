// Package cli is the kubewire command: it parses a kubectl-style command line and
// runs one command on the pipeline's packages. main.go only calls Main.
//
// # Where this sits
//
// Nowhere on the pipeline: cli is the composition root, the one package that
// wires every other (apiclient, listwatch, the informer, the controller, the
// examples) into a command. It reads flags, builds a client, and runs a stage or
// all of them. Nothing imports it but main.go.
//
// # The command line
//
//	kubewire [COMMAND] [RESOURCE] [NAME] [flags]
//
// Flags may stand anywhere, as with kubectl (flags.go: --name=value, --name value,
// -n value, -nvalue; "--" ends them). RESOURCE is resolved by discovery, so it may
// be what kubectl accepts: pods, pod, po, deployments.apps, a custom resource.
//
//	(no command)           run when a cluster config is found, else demo
//	run [podrestart|foo]   run.go: an example controller on a Manager (podrestart, the
//	                       classic pod-watch one, or foo, sample-controller's); with
//	                       --leader-elect one replica works, with --shards
//	                       (foo) every replica works on its share
//	demo                   demo.go: the same controller on an in-process API server,
//	                       the same story every run (demo_order.go prints each
//	                       step's hops in one causal order once the step is over)
//	get RESOURCE [NAME…]   get.go: the server renders tables (it knows every
//	                       resource's columns, CRDs' additionalPrinterColumns too);
//	                       -o name|json|yaml are printed here, as kubectl prints them
//	watch RESOURCE         watch.go: one line per event, on the Reflector
//	sync RESOURCE          sync.go: Reflector → FIFO → store, then report (and --dump)
//	record RESOURCE        record.go: the server's GET /version, the list a default
//	                       informer sends it (a LIST from v1.33, a streaming list
//	                       before) and the watch, to a file (new ones 0600) or -o -,
//	                       so that the file replays into a default informer or
//	                       Manager (listwatch.Record)
//	api-resources          apiresources.go: discovery, preferred versions, sorted
//	rbac [podrestart|foo]  rbac.go: the Role/ClusterRole the controller needs, bound
//	                       to its ServiceAccount kubewire-CONTROLLER, as YAML
//	manifests [podrestart|foo]  manifests.go: its CRD, ServiceAccount, that RBAC, a
//	                       Deployment and a metrics Service, as one YAML stream
//
// rbac and manifests read no kubeconfig and touch no cluster: they build the
// controller's Manager as run builds it (-n, default "default"; -A;
// --leader-elect; --shards), run it on an API server in this process through a
// workout that makes it do its whole job (workout.go), and print what it needed
// (controller.Manager.Permissions: what it built, and every request it made).
//
// The API servers demo, rbac and manifests start in this process
// (apitest.NewPlainServer) speak plain HTTP on a loopback port, and the demo
// prints their http:// address: only this process talks to them, with no
// credential (their Config has none), so TLS would protect nothing, and
// leaving out its server half keeps 0.27e6 bytes out of the binary (issue 42).
// Nothing else the command serves speaks TLS either (the page and
// --metrics-addr are plain HTTP); the command's clients of real clusters
// speak TLS as the kubeconfig says.
// Lease rules come only with --leader-elect or --shards, as run takes them;
// manifests --replicas N over 1 implies --leader-elect unless --shards. With
// -A, what the controller did in the workout's namespace it would do in every
// one: those rules go into a ClusterRole, the Leases' stay in a Role in -n's
// namespace, where the ServiceAccount lives. manifests has no image to name
// (none is published): without --image it prints example.invalid/kubewire:0.1.0,
// which can never be pulled, and says so in its header.
//
// run --metrics-addr ADDR serves /healthz, /readyz and /metrics by the same
// rules as the page (controller/metrics/listen.go): ":8080" is loopback, and
// there a request addressed to another Host is refused; beyond loopback any
// Host is answered (a Prometheus in the cluster comes by a Service's name),
// and /readyz says ok or not ready without why unless --readyz-detail: why
// names namespaces, selectors, shard ranges and other replicas' identities,
// for whoever reaches the address, a website that rebinds its name to it
// included.
//
// On run, sync and demo, --ui ADDR (ui.go) serves the live pipeline page
// (controller/live) while the command runs: its address is opened first, by
// the rule --metrics-addr follows too (":8080" is loopback; any other address
// is warned about: the page has no login), so one in use or not allowed is a
// usage error, and the pipeline's trace goes to the
// page as well as, with --trace, to stderr. demo --ui --step waits at every hop
// for the page.
//
// # Guarantees
//   - Exit 0 on success; 1 on a runtime error, with one line on stderr saying what
//     and where ("error: GET https://…/pods/x: 404 NotFound: pods "x" not found");
//     2 on a usage error, with one line and a hint to --help; 130 (SIGINT) or 143
//     (SIGTERM) when a signal stopped a command before its work was done, after
//     its summary line (signal.go). A command whose designed end is the signal —
//     run, watch once its first list is printed, sync --watch once synced, demo
//     --ui once its story is told, record without --events or --duration once
//     its first list is complete — exits 0 on it. Each command's doc says which
//     it is; TestExit_every_command_phase_and_signal holds them all. A -l or
//     --field-selector the API server would refuse is a usage error, found before
//     the kubeconfig is read (apiclient/selector). rbac and manifests of a
//     controller there is not, or with flags run would refuse, exit 2.
//   - No credential from the kubeconfig or an exec plugin is ever printed: not in
//     output, logs (-v), --trace, errors, the live page or recordings
//     (security_test.go). An exec plugin's own stderr is passed through to ours
//     as it runs, as kubectl does; it enters no error, log record or page.
//   - `get` agrees with kubectl get: the same tables (from the same server-side
//     Table), the same JSON (keys sorted, four-space indent, managedFields hidden)
//     and the same YAML layout; the integration test checks it against the server.
//
// # Compared with kubectl
//
// kubectl uses pflag and cobra; here one function of some sixty lines does
// what the command needs (parseArgs, flags.go). kubectl's get goes through cli-runtime's resource builder and
// printers; kubewire asks for the same server-side Table (Accept:
// application/json;as=Table;v=v1;g=meta.k8s.io) and prints it aligned as
// kubectl's tabwriter settings align it (columns.go, byte for byte). kubectl throttles itself at 50 requests a second (burst
// 300); kubewire does not throttle itself at all and leaves that to the server's
// Priority and Fairness (see apiclient.Options). Each distinct warning the server
// sends is printed once, as kubectl does.
package cli
