package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
)

// The command against a real kube-apiserver (KUBEWIRE_TEST_KUBECONFIG): what get
// prints must be what the server holds.
func TestIntegration_get_agrees_with_the_server(t *testing.T) {
	c, path, ns := realCluster(t, "kubewire-cli")
	ctx := context.Background()
	pods := c.Resource(apiclient.Pods).Namespace(ns)
	for i := 0; i < 3; i++ {
		pod := fmt.Sprintf(`{"metadata":{"name":"web-%d","labels":{"app":"nginx","n":"%d","kwtest":%q}},"spec":{"containers":[{"name":"nginx","image":"nginx:1.27"}]}}`, i, i, ns)
		if _, err := pods.Create(ctx, []byte(pod), apiclient.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"KUBECONFIG": path}

	code, stdout, stderr := run(t, env, "get", "po", "-n", ns, "-o", "name")
	if code != 0 || stdout != "pod/web-0\npod/web-1\npod/web-2\n" {
		t.Fatalf("get -o name: exit %d stdout %q stderr %q", code, stdout, stderr)
	}

	// Across namespaces, but only this test's pods: the cluster may hold others.
	code, stdout, _ = run(t, env, "get", "pods", "-A", "-l", "kwtest="+ns)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if code != 0 || len(lines) != 4 || strings.Join(strings.Fields(lines[0]), " ") != "NAMESPACE NAME READY STATUS RESTARTS AGE" ||
		!strings.HasPrefix(strings.Join(strings.Fields(lines[2]), " "), ns+" web-1 0/1 Pending 0 ") {
		t.Fatalf("get pods -A: exit %d\n%s", code, stdout)
	}

	code, stdout, _ = run(t, env, "-o", "json", "get", "pods", "--namespace="+ns, "--selector", "n!=1")
	var list struct {
		Kind  string
		Items []struct {
			Kind     string
			Metadata apiclient.ObjectMeta
		}
	}
	if err := json.Unmarshal([]byte(stdout), &list); err != nil || code != 0 {
		t.Fatalf("get -o json: exit %d err %v\n%s", code, err, stdout)
	}
	server, _ := pods.List(ctx, apiclient.ListOptions{LabelSelector: "n!=1"})
	var got, want []string
	for _, it := range list.Items {
		got = append(got, it.Kind+" "+it.Metadata.Name+" "+it.Metadata.ResourceVersion)
	}
	for _, o := range server.Items {
		want = append(want, "Pod "+o.Metadata.Name+" "+o.Metadata.ResourceVersion)
	}
	sort.Strings(got)
	if strings.Join(got, ",") != strings.Join(want, ",") || list.Kind != "List" || strings.Contains(stdout, "managedFields") {
		t.Fatalf("get -o json: %v, server has %v", got, want)
	}

	code, stdout, _ = run(t, env, "get", "pod", "web-2", "-n", ns, "-o", "yaml")
	if code != 0 || !strings.HasPrefix(stdout, "apiVersion: v1\nkind: Pod\nmetadata:\n") || !strings.Contains(stdout, "\n  containers:\n  - image: nginx:1.27\n") {
		t.Fatalf("get -o yaml: exit %d\n%s", code, stdout)
	}

	code, _, stderr = run(t, env, "get", "pod", "nope", "-n", ns)
	if code != 1 || !strings.Contains(stderr, `404 NotFound: pods "nope" not found`) {
		t.Fatalf("get of a missing pod: exit %d stderr %q", code, stderr)
	}

	code, stdout, _ = run(t, env, "api-resources")
	if code != 0 || !strings.Contains(stdout, "\npods ") || !strings.Contains(stdout, "apps/v1") {
		t.Fatalf("api-resources: exit %d\n%s", code, stdout)
	}
}
