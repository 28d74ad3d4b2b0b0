package controller_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/leaderelection"
	"github.com/kubewire/kubewire/controller/lease"
	"github.com/kubewire/kubewire/controller/rbac"
)

func accessLines(as []rbac.Access) string {
	var lines []string
	for _, a := range as {
		lines = append(lines, fmt.Sprintf("%s %s/%s/%s ns=%s", a.Verb, a.Group, a.Resource, a.Subresource, a.Namespace))
	}
	return strings.Join(lines, "\n")
}

// What a Manager needs is known in two parts: Built, from its informers,
// Recorders and leader election, before it runs; Used, from each request its
// client made — a Reconciler's GET and PATCH among them, discovery not.
func TestManager_Permissions_are_what_it_built_and_what_its_client_did(t *testing.T) {
	srv := apitest.NewServer(nil)
	srv.CreateNamespaces("demo", "ops")
	defer srv.Close()
	c, err := srv.Client(apiclient.Options{})
	must(t, err)
	if _, err := srv.Add(apiclient.ConfigMaps, map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "a", "namespace": "demo"}}); err != nil {
		t.Fatal(err)
	}
	m, err := controller.NewManager(c, controller.ManagerOptions{Namespace: "demo", Log: quiet,
		LeaderElection: &leaderelection.Config{Member: lease.Member{Namespace: "ops", Identity: "one"}, Name: "test"}})
	must(t, err)
	m.Recorder("kubewire.io/test")
	done := make(chan struct{})
	var once bool
	_, err = controller.New(m, "cm", controller.Options{}).For(apiclient.ConfigMaps).Owns(apiclient.Secrets).
		Complete(controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
			if _, err := m.Client().Resource(apiclient.Secrets).Namespace(req.Namespace).Get(ctx, "missing"); !apiclient.IsNotFound(err) {
				return controller.Result{}, fmt.Errorf("get: %v", err)
			}
			if _, err := m.Client().Resource(apiclient.ConfigMaps).Namespace(req.Namespace).Patch(ctx, req.Name, apiclient.MergePatch, []byte(`{"data":{"seen":"yes"}}`), apiclient.WriteOptions{}); err != nil {
				return controller.Result{}, err
			}
			if !once {
				once = true
				close(done)
			}
			return controller.Result{}, nil
		}))
	must(t, err)
	_, _ = c.ServerVersion(context.Background()) // no resource's: needs no rule

	built := accessLines(m.Permissions().Built)
	wantBuilt := strings.Join([]string{
		"list /configmaps/ ns=demo",
		"watch /configmaps/ ns=demo",
		"list /secrets/ ns=demo",
		"watch /secrets/ ns=demo",
		"create events.k8s.io/events/ ns=demo",
		"patch events.k8s.io/events/ ns=demo",
		"create coordination.k8s.io/leases/ ns=ops",
		"get coordination.k8s.io/leases/ ns=ops",
		"update coordination.k8s.io/leases/ ns=ops",
	}, "\n")
	if built != wantBuilt {
		t.Errorf("Built:\n%s\nwant:\n%s", built, wantBuilt)
	}

	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- m.Run(ctx) }()
	<-done
	cancel()
	must(t, <-ran)
	used := accessLines(m.Permissions().Used)
	for _, want := range []string{
		"get /secrets/ ns=demo",
		"patch /configmaps/ ns=demo",
		"watch /configmaps/ ns=demo", // a LIST, or a streaming list (a watch): apitest's release is unknown
		"get coordination.k8s.io/leases/ ns=ops",
		"create coordination.k8s.io/leases/ ns=ops",
	} {
		if !strings.Contains("\n"+used+"\n", "\n"+want+"\n") {
			t.Errorf("Used lacks %q:\n%s", want, used)
		}
	}
	if strings.Contains(used, "version") || strings.Contains(used, "apis") {
		t.Errorf("Used holds a request to no resource:\n%s", used)
	}
}
