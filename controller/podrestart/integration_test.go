package podrestart_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/apiclient/realtest"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/podrestart"
)

// On a real kube-apiserver: a pod first seen Pending is made Running (as a
// kubelet would, through pods/status), and the deployment gets restarted.
func TestIntegration_restarts_the_deployment_when_a_pending_pod_runs(t *testing.T) {
	c, _ := realtest.Client(t, apiclient.Options{QPS: 50, Burst: 100})
	ns := realtest.Namespace(t, c, "kubewire-run")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	deploy := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"tools"},"spec":{"selector":{"matchLabels":{"app":"tools"}},
		"template":{"metadata":{"labels":{"app":"tools"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}}}`
	deployments := c.Resource(apiclient.Deployments).Namespace(ns)
	if _, err := deployments.Create(ctx, []byte(deploy), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	pods := c.Resource(apiclient.Pods).Namespace(ns)
	if _, err := pods.Create(ctx, []byte(`{"metadata":{"name":"web","labels":{"app":"nginx"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}

	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	// A fake clock, so that restartedAt is known: it stands at 2026-01-01.
	m, err := controller.NewManager(c, controller.ManagerOptions{Namespace: ns, Log: quiet, Clock: clock.NewFake()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := podrestart.Setup(m, podrestart.Options{}); err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- m.Run(runCtx) }()
	defer func() { stop(); <-done }()

	// Watch the deployment, then make the pod Running.
	w, err := deployments.Watch(ctx, apiclient.WatchOptions{ListOptions: apiclient.ListOptions{FieldSelector: "metadata.name=tools"}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// The pod must have been seen Pending first: wait until the controller's cache has it.
	inf := m.Informer(apiclient.Pods, controller.WithLabels("app=nginx"))
	if !inf.WaitForCacheSync(ctx) {
		t.Fatal("never synced")
	}
	if _, err := pods.Patch(ctx, "web", apiclient.MergePatch, []byte(`{"status":{"phase":"Running"}}`), apiclient.WriteOptions{}, "status"); err != nil {
		t.Fatal(err)
	}
	for {
		ev, err := w.Next()
		if err != nil {
			t.Fatalf("waiting for the restart: %v", err)
		}
		if got, _ := ev.Object.FieldString("spec", "template", "metadata", "annotations", "kubectl.kubernetes.io/restartedAt"); got != "" {
			if got != "2026-01-01T00:00:00Z" {
				t.Fatalf("restartedAt = %q", got)
			}
			return
		}
	}
}
