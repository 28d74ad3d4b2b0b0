package cli

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/foo"
	"github.com/kubewire/kubewire/controller/leaderelection"
	"github.com/kubewire/kubewire/controller/lease"
	"github.com/kubewire/kubewire/controller/podrestart"
	"github.com/kubewire/kubewire/controller/rbac"
	"github.com/kubewire/kubewire/controller/sharding"
)

// workoutTimeout bounds the run rbac derives a role from. Each step takes
// milliseconds; one that never happens (a bug) is named in the error.
const workoutTimeout = 30 * time.Second

// builtin is one of the controllers `run` runs, as rbac and manifests see it:
// how to build it on a Manager, and the workout that makes it do its whole job
// on an API server in this process.
type builtin struct {
	setup   func(m *controller.Manager) error
	workout func(ctx context.Context, w *workout) error
}

var builtins = map[string]builtin{
	"podrestart": {
		setup: func(m *controller.Manager) error {
			_, err := podrestart.Setup(m, podrestart.Options{LabelSelector: demoSelector, Deployment: demoDeployment})
			return err
		},
		workout: podrestartWorkout,
	},
	"foo": {
		setup:   func(m *controller.Manager) error { _, err := foo.Setup(m, foo.Options{}); return err },
		workout: fooWorkout,
	},
}

// builtinNamed is the CONTROLLER argument of rbac and manifests (podrestart
// when there is none), or a usage error naming the ones there are.
func builtinNamed(command string, args []string) (string, builtin, error) {
	name := "podrestart"
	if len(args) == 1 {
		name = args[0]
	}
	b, ok := builtins[name]
	if !ok {
		return "", builtin{}, usagef("%s: unknown controller %q (there are podrestart and foo)", command, name)
	}
	return name, b, nil
}

// deployment says how the controller is to run: where, and with which of
// run's flags. rbac and manifests read it from their command line.
type deployment struct {
	name        string // the controller: podrestart, foo
	namespace   string // where it runs: its ServiceAccount, its Leases
	all         bool   // -A: it works in every namespace
	leaderElect bool
	shards      bool
}

// account is the ServiceAccount the controller runs as, and the name of its
// roles: kubewire-CONTROLLER, in its namespace.
func (d deployment) account() rbac.ServiceAccount {
	return rbac.ServiceAccount{Name: "kubewire-" + d.name, Namespace: d.namespace}
}

// deploymentOf reads the flags rbac and manifests share with run. The
// namespace is -n's, else "default": neither reads a kubeconfig, and the same
// line prints the same YAML wherever it runs. With -A the controller works in
// every namespace, and its ServiceAccount and Leases stay in that namespace.
func (s *session) deploymentOf(command string) (deployment, builtin, error) {
	name, b, err := builtinNamed(command, s.args)
	if err != nil {
		return deployment{}, b, err
	}
	d := deployment{name: name, namespace: cmp.Or(s.str("namespace"), "default"), all: s.boolean("all-namespaces"),
		leaderElect: s.boolean("leader-elect"), shards: s.boolean("shards")}
	switch {
	case d.shards && name != "foo":
		return d, b, usagef("%s: --shards is for the foo controller", command)
	case d.shards && d.leaderElect:
		return d, b, usagef("%s: --shards and --leader-elect exclude each other (with --shards every replica works)", command)
	case d.all && name == "podrestart":
		return d, b, usagef("%s: podrestart restarts a deployment in one namespace: use -n, not -A", command)
	}
	return d, b, nil
}

// runRBAC is `kubewire rbac [CONTROLLER]`: the Role (or ClusterRole) the
// controller needs, bound to its ServiceAccount, as YAML on stdout. Nothing
// here is a list kept by hand: the controller's Manager is built as `run`
// builds it, run against an API server in this process (no cluster is
// touched) through a workout that makes it do its whole job, and asked what it
// needed (Manager.Permissions: what it built, and every request it made).
func runRBAC(ctx context.Context, s *session) error {
	d, b, err := s.deploymentOf("rbac")
	if err != nil {
		return err
	}
	perms, err := derive(ctx, d, b, s.log)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.env.Stdout, "# What `kubewire %s` needs: derived by running it on an API server in this process\n", d.runLine())
	fmt.Fprintf(s.env.Stdout, "# (kubewire rbac %s). Discovery needs no rule: system:discovery grants it.\n", strings.Join(d.flags(), " "))
	return rbac.WriteYAML(s.env.Stdout, rbac.Objects(d.account().Name, d.account(), perms.All())...)
}

// runLine is the command line that runs the controller as d says, in a pod
// (manifests' container) or as rbac explains it.
func (d deployment) runLine() string {
	return "run " + strings.Join(d.flags(), " ")
}

// flags are d as a command line: the controller and its flags.
func (d deployment) flags() []string {
	out := []string{d.name, "-n", d.namespace}
	if d.all {
		out = []string{d.name, "-A", "-n", d.namespace}
	}
	if d.leaderElect {
		out = append(out, "--leader-elect")
	}
	if d.shards {
		out = append(out, "--shards")
	}
	return out
}

// derive builds d's Manager on an API server in this process, runs the
// workout, and returns what the Manager needed.
func derive(parent context.Context, d deployment, b builtin, log *slog.Logger) (rbac.Permissions, error) {
	ctx, cancel := context.WithTimeout(parent, workoutTimeout)
	defer cancel()
	srv := apitest.NewPlainServer(nil) // plain HTTP: see the package doc
	defer srv.Close()
	c, err := srv.Client(apiclient.Options{Log: log})
	if err != nil {
		return rbac.Permissions{}, err
	}
	// The workout's own requests go through a client of their own, so that
	// the Manager's records only the controller's.
	driver, err := srv.Client(apiclient.Options{Log: log})
	if err != nil {
		return rbac.Permissions{}, err
	}
	opts := controller.ManagerOptions{Namespace: d.namespace, Log: quietLog}
	if d.all {
		opts.Namespace = ""
	}
	member := lease.Member{Namespace: d.namespace, Identity: "workout"}
	if d.leaderElect {
		opts.LeaderElection = &leaderelection.Config{Member: member, Name: "kubewire-" + d.name, ReleaseOnCancel: true}
	}
	if d.shards {
		opts.Sharding = &sharding.Config{Member: member, Name: "kubewire-" + d.name}
	}
	m, err := controller.NewManager(c, opts)
	if err != nil {
		return rbac.Permissions{}, err
	}
	w := &workout{srv: srv, c: driver, m: m, ns: d.namespace}
	if d.all {
		// Across all namespaces, the workout's objects stand in a namespace of
		// their own, and what the controller did there it would do anywhere.
		w.ns = elsewhere(d.namespace)
	}
	srv.CreateNamespaces(d.namespace, w.ns) // where the workout writes, as a cluster needs
	if err := b.setup(m); err != nil {
		return rbac.Permissions{}, err
	}
	runCtx, stop := context.WithCancel(parent)
	defer stop()
	ran := make(chan error, 1)
	go func() { ran <- m.Run(runCtx) }() // owned here: stopped and waited for below
	err = b.workout(ctx, w)
	stop()
	if rerr := <-ran; err == nil && rerr != nil {
		err = rerr
	}
	if err != nil {
		return rbac.Permissions{}, fmt.Errorf("rbac: the %s workout: %w", d.name, err)
	}
	perms := m.Permissions()
	if d.all {
		perms.Used = anywhere(perms.Used, w.ns)
	}
	return perms, nil
}

// elsewhere is a namespace that is not ns.
func elsewhere(ns string) string {
	if ns == "kubewire-workout" {
		return "kubewire-workout-2"
	}
	return "kubewire-workout"
}

// anywhere makes the accesses in namespace ns cluster-wide: with -A the
// controller does in every namespace what it did in the workout's.
func anywhere(accesses []rbac.Access, ns string) []rbac.Access {
	out := make([]rbac.Access, len(accesses))
	for i, a := range accesses {
		if a.Namespace == ns {
			a.Namespace = ""
		}
		out[i] = a
	}
	return rbac.Sorted(out)
}

// quietLog drops the workout Manager's logs: what it does is not the user's
// cluster's.
var quietLog = slog.New(slog.NewTextHandler(io.Discard, nil))
