package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/kubewire/kubewire/apiclient/kubeconfig"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/foo"
	"github.com/kubewire/kubewire/controller/leaderelection"
	"github.com/kubewire/kubewire/controller/lease"
	"github.com/kubewire/kubewire/controller/podrestart"
	"github.com/kubewire/kubewire/controller/sharding"
)

// runRun is `kubewire run [podrestart|foo]`: one of the example controllers on a
// real cluster. It writes to that cluster, so it first says where it acts and
// what it may change. Its designed end is a signal: once the controller runs,
// Ctrl-C or SIGTERM stops it cleanly ("kubewire run: stopped") with exit 0;
// a signal during its setup (discovery, the CRD) exits 130 or 143.
func runRun(ctx context.Context, s *session) error {
	name := "podrestart"
	if len(s.args) == 1 {
		name = s.args[0]
	}
	setup, ok := map[string]func(context.Context, *session, *controller.Manager, *kubeconfig.Config) error{
		"podrestart": setupPodrestart, "foo": setupFoo}[name]
	if !ok {
		return usagef("run: unknown controller %q (there are podrestart and foo)", name)
	}
	if s.boolean("install-crd") && name != "foo" {
		return usagef("run: --install-crd is for the foo controller")
	}
	switch {
	case s.boolean("shards") && name != "foo":
		// podrestart reacts to one pod's transition by restarting a deployment
		// many pods share: no object of its is one replica's alone.
		return usagef("run: --shards is for the foo controller")
	case s.boolean("shards") && s.boolean("leader-elect"):
		return usagef("run: --shards and --leader-elect exclude each other (with --shards every replica works)")
	}
	page, err := s.openUI("run")
	if err != nil {
		return err
	}
	c, cfg, err := s.connect()
	if err != nil {
		return err
	}
	opts := controller.ManagerOptions{Namespace: s.namespace(cfg), MetricsAddr: s.str("metrics-addr"), ReadyDetail: s.boolean("readyz-detail"), Log: s.log, Trace: s.tracer(), List: s.listMethod()}
	// The Leases (leader election's, or the shard members') live in the
	// namespace the controller works in, or, with -A, in the context's.
	member := lease.Member{Namespace: cmp.Or(s.namespace(cfg), c.Namespace()), Identity: s.str("identity")}
	if s.boolean("leader-elect") {
		opts.LeaderElection = &leaderelection.Config{Member: member, Name: "kubewire-" + name, ReleaseOnCancel: true}
	}
	if s.boolean("shards") {
		opts.Sharding = &sharding.Config{Member: member, Name: "kubewire-" + name}
	}
	m, err := controller.NewManager(c, opts)
	if err != nil {
		return err
	}
	if err := setup(ctx, s, m, cfg); err != nil {
		return err
	}
	if sh := m.Sharder(); sh != nil {
		fmt.Fprintf(s.env.Stderr, "kubewire run: sharing the work with every replica run with --shards: this one is %q, each holds a Lease %s-shard-IDENTITY in namespace %q\n",
			sh.Identity(), opts.Sharding.Name, opts.Sharding.Namespace)
	}
	pageCtx, stopPage := context.WithCancel(ctx)
	served := page.serve(pageCtx, m) // the page, while m runs
	err = m.Run(ctx)
	stopPage()
	if perr := <-served; err == nil {
		err = perr
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(s.env.Stderr, "kubewire run: stopped")
	return nil
}

// setupPodrestart: the controller of the classic client-go articles.
func setupPodrestart(_ context.Context, s *session, m *controller.Manager, cfg *kubeconfig.Config) error {
	ns := s.namespace(cfg)
	if ns == "" {
		return usagef("run restarts a deployment in one namespace: use -n, not -A")
	}
	selector := cmp.Or(s.str("selector"), "app=nginx")
	deployment := cmp.Or(s.str("restart-deployment"), "tools")
	if _, err := podrestart.Setup(m, podrestart.Options{LabelSelector: selector, Deployment: deployment, Workers: s.integer("workers", 1)}); err != nil {
		return err
	}
	fmt.Fprintf(s.env.Stderr, "kubewire run: context %q, server %s, namespace %q: watching pods %q; when one first seen Pending becomes Running, restarting deployment %q (PATCH, field manager kubewire)\n",
		cfg.Context, m.Client().Server(), ns, selector, deployment)
	return nil
}

// setupFoo: sample-controller's Foo. Its CRD must be served, or installed with
// --install-crd.
func setupFoo(ctx context.Context, s *session, m *controller.Manager, cfg *kubeconfig.Config) error {
	c := m.Client()
	served, err := foo.HasCRD(ctx, c)
	switch {
	case err != nil:
		return err
	case !served && s.boolean("install-crd"):
		if err := foo.InstallCRD(ctx, c); err != nil {
			return err
		}
		fmt.Fprintf(s.env.Stderr, "kubewire run: installed the CRD %s\n", foo.CRDName)
	case !served:
		return errors.New("run foo: the server does not serve foos.samplecontroller.k8s.io: install its CRD with --install-crd (or kubectl apply it)")
	}
	ns := s.namespace(cfg)
	if _, err := foo.Setup(m, foo.Options{Workers: s.integer("workers", 1)}); err != nil {
		return err
	}
	where := fmt.Sprintf("namespace %q", ns)
	if ns == "" {
		where = "all namespaces"
	}
	fmt.Fprintf(s.env.Stderr, "kubewire run: context %q, server %s, %s: reconciling each Foo into its Deployment (create and server-side apply, field manager kubewire-foo), its status and Events\n",
		cfg.Context, c.Server(), where)
	return nil
}
