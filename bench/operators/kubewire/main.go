// Command staticsite runs the StaticSite controller on kubewire.
package main

import (
	"context"
	"flag"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/kubeconfig"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/crd"
	"github.com/kubewire/kubewire/controller/leaderelection"
	"github.com/kubewire/kubewire/controller/lease"
)

func main() {
	metricsAddr := flag.String("metrics-bind-address", "127.0.0.1:8080", "where /healthz, /readyz and /metrics are served")
	leaderElect := flag.Bool("leader-elect", false, "one replica at a time is active")
	namespace := flag.String("namespace", "", "watch only this namespace (all namespaces when empty)")
	flag.Parse()
	if err := run(*metricsAddr, *namespace, *leaderElect); err != nil {
		slog.Error("staticsite", "err", err)
		os.Exit(1)
	}
}

func run(metricsAddr, namespace string, leaderElect bool) error {
	cfg, err := kubeconfig.Load(kubeconfig.Options{})
	if err != nil {
		return err
	}
	client, err := apiclient.New(cfg, apiclient.Options{})
	if err != nil {
		return err
	}
	opts := controller.ManagerOptions{Namespace: namespace, MetricsAddr: metricsAddr}
	if leaderElect {
		opts.LeaderElection = &leaderelection.Config{Member: lease.Member{Namespace: namespace}, Name: "staticsite.demo.kubewire.io"}
	}
	m, err := controller.NewManager(client, opts)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	site := crd.MustNew(crd.Options{Columns: []crd.Column{{Name: "Ready", JSONPath: `.status.conditions[?(@.type=="Ready")].status`},
		{Name: "Available", JSONPath: ".status.availableReplicas"}}}, new(StaticSite))
	if err := crd.Install(ctx, client, site, crd.InstallOptions{}); err != nil {
		return err
	}
	if err := setup(m); err != nil {
		return err
	}
	return m.Run(ctx)
}
