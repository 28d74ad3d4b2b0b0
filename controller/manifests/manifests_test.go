package manifests_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient/builtin"
	"github.com/kubewire/kubewire/controller/manifests"
	"github.com/kubewire/kubewire/controller/rbac"
)

// Several replicas elect a leader unless they shard; one never needs to.
func TestObjects_elect_a_leader_only_with_several_replicas_that_do_not_shard(t *testing.T) {
	for _, tc := range []struct {
		replicas int
		sharded  bool
		want     string
	}{
		{0, false, "run x --metrics-addr 0.0.0.0:8080"},
		{1, false, "run x --metrics-addr 0.0.0.0:8080"},
		{3, false, "run x --metrics-addr 0.0.0.0:8080 --leader-elect"},
		{3, true, "run x --metrics-addr 0.0.0.0:8080"},
	} {
		objs, err := manifests.Objects(manifests.Options{Name: "kubewire-x", Namespace: "ns", Image: "i", Args: []string{"run", "x"},
			Replicas: tc.replicas, Sharded: tc.sharded, Permissions: []rbac.Access{{Verb: "list", Resource: "pods", Namespace: "ns"}}})
		if err != nil {
			t.Fatal(err)
		}
		var d *builtin.Deployment
		for _, o := range objs {
			if o, ok := o.(*builtin.Deployment); ok {
				d = o
			}
		}
		if got := strings.Join(d.Spec.Template.Spec.Containers[0].Args, " "); got != tc.want {
			t.Errorf("replicas %d sharded %v: args %q; want %q", tc.replicas, tc.sharded, got, tc.want)
		}
		sc := d.Spec.Template.Spec.Containers[0].SecurityContext
		if !*d.Spec.Template.Spec.SecurityContext.RunAsNonRoot || !*sc.ReadOnlyRootFilesystem || *sc.AllowPrivilegeEscalation || strings.Join(sc.Capabilities.Drop, ",") != "ALL" {
			t.Errorf("the pod is not hardened: %+v %+v", d.Spec.Template.Spec.SecurityContext, sc)
		}
	}
}

// A CRD given as JSON is written first, as block YAML in its own key order.
func TestWrite_prints_a_CRD_first_as_block_YAML(t *testing.T) {
	objs, err := manifests.Objects(manifests.Options{Name: "n", Namespace: "ns", Image: "i",
		CRDs: [][]byte{[]byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"xs.example.com"},"spec":{"versions":[{"name":"v1","served":true}]}}`)}})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := manifests.Write(&b, []string{"a header"}, objs...); err != nil {
		t.Fatal(err)
	}
	want := "# a header\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: xs.example.com\nspec:\n  versions:\n    - name: v1\n      served: true\n---\napiVersion: v1\nkind: ServiceAccount\n"
	if got := b.String(); !strings.HasPrefix(got, want) {
		t.Errorf("the stream begins:\n%s\nwant:\n%s", got[:min(len(got), len(want)+40)], want)
	}
}

// A controller that serves webhooks gets a container port and a Service for
// them, and the webhook server's own objects (its CA's Secret and the
// configurations) come last, after the Deployment that serves them.
func TestObjects_with_webhooks_add_their_port_Service_and_objects_last(t *testing.T) {
	type marker struct{ Kind string }
	secret, config := &marker{"Secret"}, &marker{"ValidatingWebhookConfiguration"}
	o := manifests.Options{Name: "kubewire-x", Namespace: "ns", Image: "i", Args: []string{"run", "x"},
		Webhooks: &manifests.Webhooks{Objects: []any{secret, config}}}
	objs, err := manifests.Objects(o)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, obj := range objs {
		switch obj := obj.(type) {
		case *builtin.Deployment:
			kinds = append(kinds, "Deployment")
			var ports []string
			for _, p := range obj.Spec.Template.Spec.Containers[0].Ports {
				ports = append(ports, p.Name+":"+strconv.Itoa(int(p.ContainerPort)))
			}
			if got, want := strings.Join(ports, " "), "metrics:8080 webhooks:9443"; got != want {
				t.Errorf("container ports %q, want %q", got, want)
			}
		case *builtin.Service:
			kinds = append(kinds, "Service "+obj.Name)
		case *marker:
			kinds = append(kinds, obj.Kind)
		default:
			kinds = append(kinds, "other")
		}
	}
	got := strings.Join(kinds, ", ")
	if want := "Deployment, Service kubewire-x-metrics, Service kubewire-x-webhooks, Secret, ValidatingWebhookConfiguration"; !strings.HasSuffix(got, want) {
		t.Fatalf("objects %s; want them to end with %s", got, want)
	}
	if got, want := o.WebhookServiceName(), "kubewire-x-webhooks"; got != want {
		t.Fatalf("WebhookServiceName %q, want %q", got, want)
	}
}
