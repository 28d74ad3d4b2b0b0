package cli_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/cli"
)

// `kubewire run` on a real kube-apiserver: it says where it acts, and when a pod
// first seen Pending is made Running (as a kubelet would, through pods/status), it
// restarts the deployment; Ctrl-C ends it cleanly with exit 0.
func TestIntegration_run_restarts_the_deployment(t *testing.T) {
	c, path, ns := realCluster(t, "kubewire-run")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	deployments := c.Resource(apiclient.Deployments).Namespace(ns)
	if _, err := deployments.Create(ctx, []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web-tools"},
		"spec":{"selector":{"matchLabels":{"app":"t"}},"template":{"metadata":{"labels":{"app":"t"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	pods := c.Resource(apiclient.Pods).Namespace(ns)
	if _, err := pods.Create(ctx, []byte(`{"metadata":{"name":"web","labels":{"role":"web"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}

	stderr := &signalWriter{want: "controller started", seen: make(chan struct{})}
	var stdout bytes.Buffer
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan int, 1)
	go func() {
		done <- cli.Main(runCtx, []string{"run", "-n", ns, "-l", "role=web", "--restart-deployment", "web-tools", "--workers", "2"},
			cli.Env{Stdout: &stdout, Stderr: stderr, Getenv: func(k string) string { return map[string]string{"KUBECONFIG": path}[k] }})
	}()
	<-stderr.seen // synced, with the pod seen Pending
	w, err := deployments.Watch(ctx, apiclient.WatchOptions{ListOptions: apiclient.ListOptions{FieldSelector: "metadata.name=web-tools"}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := pods.Patch(ctx, "web", apiclient.MergePatch, []byte(`{"status":{"phase":"Running"}}`), apiclient.WriteOptions{}, "status"); err != nil {
		t.Fatal(err)
	}
	for {
		ev, err := w.Next()
		if err != nil {
			t.Fatalf("waiting for the restart: %v\n%s", err, stderr)
		}
		if at, _ := ev.Object.FieldString("spec", "template", "metadata", "annotations", "kubectl.kubernetes.io/restartedAt"); at != "" {
			break
		}
	}
	stop() // Ctrl-C
	if code := <-done; code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	out := stderr.String()
	for _, want := range []string{`namespace "` + ns + `": watching pods "role=web"`, `restarting deployment "web-tools"`, `msg="restarted deployment"`, "kubewire run: stopped"} {
		if !strings.Contains(out, want) {
			t.Fatalf("stderr lacks %q:\n%s", want, out)
		}
	}
}
