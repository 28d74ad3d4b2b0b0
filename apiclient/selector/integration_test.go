package selector_test

import (
	"context"
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/realtest"
	"github.com/kubewire/kubewire/apiclient/selector"
)

// TestIntegration_the_API_server_agrees sends selectors to a real kube-apiserver
// (KUBEWIRE_TEST_KUBECONFIG) as the labelSelector and fieldSelector of a LIST: the
// server must refuse with 400 exactly those Parse and ParseFields refuse. The
// field selectors name fields the server supports for pods, since it refuses the
// others for that reason alone.
func TestIntegration_the_API_server_agrees(t *testing.T) {
	c, _ := realtest.Client(t, apiclient.Options{QPS: 50, Burst: 100})
	pods := c.Resource(apiclient.Pods).Namespace("default")
	ctx := context.Background()
	for _, s := range []string{
		"app=web", "app==web", "app!=web", "env in (prod, qa)", "env notin (canary)", "gpu", "!legacy",
		"replicas>2", "replicas<10", "app=", "env in ()", "env in (,a)", "env in (a,,b)", "in in (in,notin)",
		"app.kubernetes.io/name=web", " app = web , tier != db ",
		"app=web,", ",app=web", "app web", "!app=web", "env in (prod", "Example.com/app=x",
		"a/b/c=x", "-app=x", "app=-web", "app=we/b", "replicas>two", "replicas>-1", "app>=1", "a b=c",
		strings.Repeat("k", 64) + "=x", "app=" + strings.Repeat("v", 64),
	} {
		_, parseErr := selector.Parse(s)
		_, err := pods.List(ctx, apiclient.ListOptions{LabelSelector: s, Limit: 1})
		if refused := apiclient.CodeOf(err) == 400; refused != (parseErr != nil) {
			t.Errorf("label selector %q: Parse says %v, the server %v", s, parseErr, err)
		}
	}
	// Empty values between commas: Kubernetes 1.35 (kubernetes#133419) accepts any
	// run of commas in a set, as Parse does; older servers refuse some runs and
	// accept others (see valueSet in labelparse.go).
	version, err := c.ServerVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for s, olderRefuses := range map[string]bool{
		"env in (,,)": true, "env in (a,,)": true, "env notin (,,)": true, "env in (a,b,,)": true,
		"env in (,,,)": false, "env in (a,,,)": false,
	} {
		if _, err := selector.Parse(s); err != nil {
			t.Errorf("label selector %q: Parse refuses it: %v", s, err)
		}
		_, err := pods.List(ctx, apiclient.ListOptions{LabelSelector: s, Limit: 1})
		wantRefused := olderRefuses && !version.AtLeast(1, 35)
		if refused := apiclient.CodeOf(err) == 400; refused != wantRefused {
			t.Errorf("label selector %q on %s: the server answered %v, want refused=%v", s, version.GitVersion, err, wantRefused)
		}
	}
	for _, s := range []string{
		"metadata.name=web", "metadata.name==web", "status.phase!=Running,spec.nodeName=", `metadata.name=a\,b\=c\\d`,
		",metadata.name=web,,", "metadata.name=a=b", `metadata.name=a\nb`, `metadata.name=ab\`, "metadata.name",
	} {
		_, parseErr := selector.ParseFields(s)
		_, err := pods.List(ctx, apiclient.ListOptions{FieldSelector: s, Limit: 1})
		if refused := apiclient.CodeOf(err) == 400; refused != (parseErr != nil) {
			t.Errorf("field selector %q: ParseFields says %v, the server %v", s, parseErr, err)
		}
	}
}
