package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/kubewire/kubewire/controller/metrics"
)

// Env is what the command reads and writes besides its arguments, so tests can
// run it in-process: the streams, and the environment (KUBECONFIG, HOME).
type Env struct {
	Stdout, Stderr io.Writer
	// Getenv looks up environment variables; nil means os.Getenv.
	Getenv func(string) string
}

// command is one subcommand: its name, a line of help, how many arguments it takes
// after its name (at most maxArgs; -1: any number), and what it does.
type command struct {
	name, args, help string
	maxArgs          int
	run              func(ctx context.Context, s *session) error
}

// commands in the order the help lists them.
var commands = []command{
	{"run", "[podrestart|foo]", "an example controller: podrestart restarts a deployment when a watched pod becomes Running; foo is sample-controller's Foo → Deployment", 1, runRun},
	{"get", "RESOURCE [NAME...]", "print objects as kubectl get does (-o table|name|json|yaml|wide)", -1, runGet},
	{"api-resources", "", "list the resources the server serves, as kubectl api-resources", 0, runAPIResources},
	{"watch", "RESOURCE", "one line per event: TYPE namespace/name resourceVersion (-o json: the events)", 1, runWatch},
	{"sync", "RESOURCE", "fill a cache (Reflector → FIFO → store), report, exit; --watch keeps it in step", 1, runSync},
	{"record", "RESOURCE -o FILE", "write the list and watch events to FILE, for apitest to replay (secrets redacted)", 1, runRecord},
	{"demo", "", "the run controller on an API server in this process, with --trace: no cluster needed", 0, runDemo},
	{"rbac", "[podrestart|foo]", "the least-privilege Role/ClusterRole the controller needs, bound to its ServiceAccount (YAML), derived by running it in this process", 1, runRBAC},
	{"manifests", "[podrestart|foo]", "ServiceAccount, RBAC, CRD, Deployment and metrics Service to run the controller in a cluster (YAML; --image IMG)", 1, runManifests},
}

// checkArgs refuses what a command would otherwise ignore or misread: arguments
// past the ones it takes, and an empty one ("" is what an unset shell variable
// gives: `get pods "$NAME"` must not print every pod).
func (c command) checkArgs(args []string) error {
	if c.maxArgs >= 0 && len(args) > c.maxArgs {
		return usagef("%s takes %s, not %q", c.name, cmp.Or(c.args, "no arguments"), args)
	}
	for _, a := range args {
		if a == "" {
			return usagef("%s: an empty argument is not a resource or a name (an unset shell variable?)", c.name)
		}
	}
	return nil
}

// flags every command understands, kubectl's names; commands that take only some
// say so in flagSpec.commands.
var flags = []flagSpec{
	{long: "kubeconfig", kind: stringFlag, usage: "path to the kubeconfig file (else $KUBECONFIG, ~/.kube/config, in-cluster)"},
	{long: "context", kind: stringFlag, usage: "the kubeconfig context to use"},
	{long: "namespace", short: "n", kind: stringFlag, usage: "the namespace (default: the context's, else \"default\")"},
	{long: "all-namespaces", short: "A", kind: boolFlag, usage: "every namespace"},
	{long: "selector", short: "l", kind: stringFlag, usage: "label selector, e.g. app=nginx,tier!=db"},
	{long: "field-selector", kind: stringFlag, usage: "field selector, e.g. status.phase=Running"},
	{long: "output", short: "o", kind: stringFlag, usage: "output format: table, wide, name, json, yaml (watch: json); record: the file to write, - for standard output", commands: "get watch record"},
	{long: "watch", kind: boolFlag, usage: "sync: keep watching after the sync until interrupted", commands: "sync"},
	{long: "until-events", kind: intFlag, usage: "sync: keep watching until N more watch events were applied", commands: "sync"},
	{long: "dump", kind: boolFlag, usage: "sync: print the cache as sorted \"namespace/name resourceVersion\" lines at exit", commands: "sync"},
	{long: "watch-list", kind: boolFlag, usage: "list with a streaming list (sendInitialEvents), whatever the server; by default the cheaper of LIST and a streaming list for the server's release, LIST with KUBE_FEATURE_WatchListClient=false", commands: "sync"},
	{long: "metadata-only", kind: boolFlag, usage: "cache metadata only (PartialObjectMetadata), not whole objects", commands: "sync"},
	{long: "events", kind: intFlag, usage: "record: stop after N watch events (after the list)", commands: "record"},
	{long: "duration", kind: durationFlag, usage: "record: stop after this long, e.g. 30s", commands: "record"},
	{long: "restart-deployment", kind: stringFlag, usage: "run: the deployment to restart (default tools)", commands: "run"},
	{long: "workers", kind: intFlag, usage: "run: reconcile workers (default 1)", commands: "run"},
	{long: "metrics-addr", kind: stringFlag, usage: "run: serve /healthz, /readyz and /metrics here, e.g. :8080 (loopback, where a foreign Host header is refused against DNS rebinding; 0.0.0.0:8080 for every interface, where any Host is answered)", commands: "run"},
	{long: "readyz-detail", kind: boolFlag, usage: "run: let /readyz say why it is not ready and what this replica serves (namespaces, selectors, shard ranges, identities) on a --metrics-addr beyond loopback too, where anyone who reaches the address reads it (off: ok or not ready, no more; on loopback it always says it)", commands: "run"},
	{long: "leader-elect", kind: boolFlag, usage: "run: reconcile only while holding the kubewire-CONTROLLER Lease; rbac, manifests: for a controller run so (manifests: the default with --replicas over 1)", commands: "run rbac manifests"},
	{long: "shards", kind: boolFlag, usage: "run foo: share the Foos among every replica run with --shards (a Lease each, kubewire-foo-shard-IDENTITY); rbac, manifests: for a controller run so", commands: "run rbac manifests"},
	{long: "image", kind: stringFlag, usage: "manifests: the container image that holds kubewire (there is no published one: without it, a placeholder that cannot be pulled)", commands: "manifests"},
	{long: "replicas", kind: intFlag, usage: "manifests: the Deployment's replicas (default 1; over 1, with --leader-elect unless --shards)", commands: "manifests"},
	{long: "identity", kind: stringFlag, usage: "run: this replica's name in --leader-elect and --shards (default: host name and a random suffix)", commands: "run"},
	{long: "ui", kind: stringFlag, usage: "serve the live pipeline page here, e.g. :8080 (loopback, as for --metrics-addr; anything else is warned about)", commands: "run sync demo"},
	{long: "step", kind: boolFlag, usage: "demo --ui: pause at every hop until the page asks for the next", commands: "demo"},
	{long: "install-crd", kind: boolFlag, usage: "run foo: create the Foo CRD when the server does not serve it", commands: "run"},
	{long: "max-list-mib", kind: intFlag, usage: "refuse a list over this many MiB, decompressed, all pages together (default 1024)", commands: "run get sync"},
	{long: "max-list-objects", kind: intFlag, usage: "refuse a list of more objects than this (default 500000)", commands: "run get sync"},
	{long: "v", short: "v", kind: intFlag, usage: "log verbosity (0 = info; 6 logs every request)"},
	{long: "trace", kind: boolFlag, usage: "one line per hop per object, prefixed by the stage"},
	{long: "help", short: "h", kind: boolFlag, usage: "show this help"},
}

// session is one run of the command: the parsed line and the streams.
type session struct {
	*parsed
	env  Env
	log  *slog.Logger
	page *ui // --ui's live page, once openUI opened it; nil without
}

// Main runs the kubewire command line and returns the process's exit code:
// 0 success, 1 a runtime error (one line on stderr saying what and where),
// 2 a usage error (one line and a hint), 130 or 143 when Ctrl-C or SIGTERM
// (ctx, from NotifyContext) stopped it before its work was done (signal.go).
// With no command it runs `run` if a cluster config is found and `demo` if
// there is none (defaultCommand).
func Main(ctx context.Context, argv []string, env Env) int {
	if env.Getenv == nil {
		env.Getenv = os.Getenv
	}
	// Every command writes from several goroutines (the logger, the tracer, a
	// summary line while a watch still traces); an *os.File takes that, but the Env
	// of a test (a bytes.Buffer, perhaps the same one for both streams) does not.
	// One lock for both streams. (Found by TestSecurity_credentials_never_reach_output_logs_or_trace:
	// sync --trace raced its summary line against the watch's trace.)
	var mu sync.Mutex
	stdout := &lockedWriter{mu: &mu, w: env.Stdout}
	env.Stdout, env.Stderr = stdout, &lockedWriter{mu: &mu, w: env.Stderr}
	p, err := parseArgs(flags, argv)
	if err != nil {
		return fail(env, err)
	}
	if p.boolean("help") {
		printHelp(env.Stdout)
		return 0
	}
	var name string
	if len(p.args) == 0 {
		if name, err = defaultCommand(p, env); err != nil {
			return fail(env, err)
		}
	} else {
		name, p.args = p.args[0], p.args[1:]
	}
	cmd, ok := lookup(name)
	if !ok {
		return fail(env, usagef("unknown command %q", name))
	}
	if err := p.checkCommand(flags, name); err != nil {
		return fail(env, err)
	}
	if err := cmd.checkArgs(p.args); err != nil {
		return fail(env, err)
	}
	if err := p.checkSelectors(); err != nil {
		return fail(env, err)
	}
	s := &session{parsed: p, env: env}
	s.log = slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: s.logLevel()}))
	start := time.Now()
	err = cmd.run(ctx, s)
	s.page.close()
	code := 0
	if err != nil {
		if !interrupted(ctx) {
			return fail(env, err)
		}
		// Ctrl-C or SIGTERM before the work was done: a clean stop, one
		// summary line (not an "error: context canceled"), and 130 or 143 so
		// that a script sees the failure. Commands with more to say (sync,
		// watch, record, demo) say it themselves and return errStopped; this is
		// the line for the rest. A command whose work was done, or whose
		// designed end is the signal, returned nil: exit 0.
		if !errors.Is(err, errStopped) {
			fmt.Fprintf(env.Stderr, "interrupted after %v: %s did not finish\n",
				time.Since(start).Round(time.Millisecond), printable(strings.Join(append([]string{name}, p.args...), " ")))
		}
		code = stopCode(ctx)
	}
	// Results that did not reach standard output (a full disk, a closed pipe) are
	// a failure, whatever the command thought it printed: a script must not take
	// exit 0 for "here is the list".
	if err := stdout.failed(); err != nil {
		return fail(env, fmt.Errorf("write standard output: %w", err))
	}
	return code
}

// interrupted tells a command stopped by ctx (Ctrl-C, SIGTERM: main's
// NotifyContext) from one that failed: ctx is done. The error is not
// asked: a request cut by the stop fails in whatever way the cut lands, as
// "context canceled" mostly, but as a bare EOF when the server's answer to the
// closing connection raced the cancel (net/http then hands back that answer),
// and the user asked for the stop either way.
func interrupted(ctx context.Context) bool {
	return ctx.Err() != nil
}

// logLevel is -v's: info at 0, debug above.
func (p *parsed) logLevel() slog.Level {
	if p.integer("v", 0) > 0 {
		return slog.LevelDebug
	}
	return slog.LevelInfo
}

func lookup(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// fail prints err as one line and picks the exit code.
func fail(env Env, err error) int {
	var ue *usageError
	if errors.As(err, &ue) {
		// oneLine: a message may quote an argument, and an argument may hold a
		// newline (found by FuzzParseArgs).
		fmt.Fprintf(env.Stderr, "error: %s\nSee 'kubewire --help' for usage.\n", oneLine(ue.msg))
		return 2
	}
	fmt.Fprintf(env.Stderr, "error: %s\n", oneLine(err.Error()))
	return 1
}

func printHelp(w io.Writer) {
	fmt.Fprintln(w, "kubewire: Kubernetes controllers from scratch, on raw HTTP.")
	fmt.Fprintln(w, "\nUsage: kubewire [COMMAND] [RESOURCE] [NAME] [flags]   (flags may stand anywhere)")
	fmt.Fprintln(w, "With no command: run, if a cluster config is found; else demo.")
	fmt.Fprintln(w, "\nCommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-28s %s\n", c.name+" "+c.args, c.help)
	}
	fmt.Fprintln(w, "\nFlags:")
	for _, f := range flags {
		names := "--" + f.long
		if f.short != "" && f.short != f.long {
			names = "-" + f.short + ", " + names
		}
		fmt.Fprintf(w, "  %-28s %s\n", names, f.usage)
	}
}

// oneLine folds a message onto one line, and escapes what else in it a
// terminal would act on (metrics.Printable): an error quotes the server's
// words (a Status reason, a name), and a hostile server's may hold escape
// sequences.
func oneLine(s string) string {
	return metrics.Printable(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s))
}
