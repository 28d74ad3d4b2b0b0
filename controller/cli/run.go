package cli

import (
	"context"
	"fmt"

	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/leaderelection"
	"github.com/kubewire/kubewire/controller/podrestart"
)

// runRun is `kubewire run`: the controller of the classic client-go articles
// (package podrestart). It writes to a real cluster, so it first says where it
// acts and what it may change.
func runRun(ctx context.Context, s *session) error {
	if len(s.args) == 1 && s.args[0] != "podrestart" {
		return usagef("run: unknown controller %q (there is podrestart)", s.args[0])
	}
	c, cfg, err := s.connect()
	if err != nil {
		return err
	}
	ns := s.namespace(cfg)
	if ns == "" {
		return usagef("run restarts a deployment in one namespace: use -n, not -A")
	}
	selector := s.str("selector")
	if selector == "" {
		selector = "app=nginx"
	}
	deployment := s.str("restart-deployment")
	if deployment == "" {
		deployment = "tools"
	}
	opts := controller.ManagerOptions{MetricsAddr: s.str("metrics-addr"), Log: s.log, Trace: s.tracer()}
	if s.boolean("leader-elect") {
		opts.LeaderElection = &leaderelection.Config{Namespace: ns, Name: "kubewire-podrestart", ReleaseOnCancel: true}
	}
	m, err := controller.NewManager(c, opts)
	if err != nil {
		return err
	}
	podrestart.Setup(m, podrestart.Options{Namespace: ns, LabelSelector: selector, Deployment: deployment,
		Workers: s.integer("workers", 1), Log: s.log, Trace: s.tracer()})
	fmt.Fprintf(s.env.Stderr, "kubewire run: context %q, server %s, namespace %q: watching pods %q; when one first seen Pending becomes Running, restarting deployment %q (PATCH, field manager kubewire)\n",
		cfg.Context, c.Server(), ns, selector, deployment)
	if err := m.Run(ctx); err != nil {
		return err
	}
	fmt.Fprintln(s.env.Stderr, "kubewire run: stopped")
	return nil
}
