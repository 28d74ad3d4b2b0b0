package apiclient_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/realtest"
)

// Server-side apply on a real server: the first apply creates; a second manager
// that sets the same field differently conflicts, naming the owner; Force takes
// the field over; apply to the status subresource writes status alone.
func TestIntegration_server_side_apply(t *testing.T) {
	c, _ := realtest.Client(t, apiclient.Options{})
	ns := realtest.Namespace(t, c, "apply")
	ctx := context.Background()
	cms := c.Resource(apiclient.ConfigMaps).Namespace(ns)
	intent := func(value string) []byte {
		return []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cfg"},"data":{"mode":"` + value + `"}}`)
	}
	if _, err := cms.Apply(ctx, intent("a"), apiclient.WriteOptions{FieldManager: "first"}); err != nil {
		t.Fatalf("apply creating the object: %v", err)
	}
	_, err := cms.Apply(ctx, intent("b"), apiclient.WriteOptions{FieldManager: "second"})
	if !apiclient.IsConflict(err) || !strings.Contains(err.Error(), `"first"`) {
		t.Fatalf("a second manager's apply of the same field: %v, want a conflict naming manager \"first\"", err)
	}
	o, err := cms.Apply(ctx, intent("b"), apiclient.WriteOptions{FieldManager: "second", Force: true})
	if err != nil {
		t.Fatalf("forced apply: %v", err)
	}
	if mode, _ := o.FieldString("data", "mode"); mode != "b" {
		t.Fatalf("data.mode = %q after the forced apply, want b", mode)
	}

	deployments := c.Resource(apiclient.Deployments).Namespace(ns)
	if _, err := deployments.Create(ctx, []byte(demoDeployment), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	status := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"demo-deployment"},"status":{"availableReplicas":2,"readyReplicas":2,"replicas":2}}`
	d, err := deployments.Apply(ctx, []byte(status), apiclient.WriteOptions{FieldManager: "status-test", Force: true}, "status")
	if err != nil {
		t.Fatalf("apply to status: %v", err)
	}
	if n, _ := d.Field("status", "availableReplicas"); n == nil || n.(interface{ String() string }).String() != "2" {
		t.Fatalf("status.availableReplicas = %v after apply to status, want 2", n)
	}
}

// fieldValidation: Strict refuses an unknown field, naming it; Warn (what the
// server does when nothing is asked) accepts the write and says so in a Warning
// header, which reaches OnWarning.
func TestIntegration_field_validation_and_warnings(t *testing.T) {
	var mu sync.Mutex
	var warned []string
	c, _ := realtest.Client(t, apiclient.Options{OnWarning: func(text string) {
		mu.Lock()
		defer mu.Unlock()
		warned = append(warned, text)
	}})
	ns := realtest.Namespace(t, c, "validation")
	ctx := context.Background()
	cms := c.Resource(apiclient.ConfigMaps).Namespace(ns)
	bad := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"typo"},"dta":{"a":"b"}}`)
	_, err := cms.Create(ctx, bad, apiclient.WriteOptions{FieldValidation: "Strict"})
	if apiclient.CodeOf(err) != 400 || !strings.Contains(err.Error(), "dta") {
		t.Fatalf("strict create with an unknown field: %v, want 400 naming .dta", err)
	}
	if _, err := cms.Create(ctx, bad, apiclient.WriteOptions{FieldValidation: "Warn"}); err != nil {
		t.Fatalf("create with Warn: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(warned) != 1 || !strings.Contains(warned[0], `unknown field "dta"`) {
		t.Fatalf("warnings %q, want one about the unknown field dta", warned)
	}
}
