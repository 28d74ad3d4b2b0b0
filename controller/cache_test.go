package controller_test

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/finalizer"
	"github.com/kubewire/kubewire/controller/status"
)

// site is a resource of the test's own with everything a cached object can
// share: maps, slices, pointers, nested structs, a generic member.
type site struct {
	apiclient.TypeMeta
	apiclient.ObjectMeta `json:"metadata"`
	Spec                 struct {
		Replicas *int32            `json:"replicas"`
		Tags     []string          `json:"tags"`
		Env      map[string]string `json:"env"`
		Extra    map[string]any    `json:"extra"`
	} `json:"spec"`
	Status struct {
		Conditions []status.Condition `json:"conditions"`
	} `json:"status"`
}

func (*site) Resource() apiclient.Resource { return sites }

var sites = apiclient.Resource{Group: "example.com", Version: "v1", Name: "sites", Singular: "site", Kind: "Site", Namespaced: true}

// cacheSiteCRD serves sites, keeping whatever they hold.
const cacheSiteCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"sites.example.com"},
"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"sites","singular":"site","kind":"Site","listKind":"SiteList"},
 "versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`

// A reconcile changes everything it can reach — the typed value a Lister gave
// it, the objects Get, List and ByIndex gave it, and what the toolkit helpers
// were handed — and the cache still equals the server afterwards: nothing a
// Reconciler is handed reaches the store.
func TestCache_cannot_be_changed_through_what_a_reconcile_reads(t *testing.T) {
	srv := apitest.NewServer(nil)
	t.Cleanup(srv.Close)
	c, err := srv.Client(apiclient.Options{})
	must(t, err)
	_, err = srv.Add(apiclient.CRDs, cacheSiteCRD)
	must(t, err)
	for _, name := range []string{"a", "b"} {
		_, err := srv.Add(sites, `{"metadata":{"name":"`+name+`","namespace":"default","labels":{"app":"web"},
			"annotations":{"note":"x"},"finalizers":["keep.example.com/x"],"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"o","uid":"u","controller":true}]},
			"spec":{"replicas":2,"tags":["t1"],"env":{"k":"v"},"extra":{"nested":{"deep":[1,2]}}},
			"status":{"conditions":[{"type":"Ready","status":"False","reason":"Waiting","message":"","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}`)
		must(t, err)
	}
	m, err := controller.NewManager(c, controller.ManagerOptions{Namespace: "default", Log: quiet})
	must(t, err)
	must(t, m.Index(sites, "app", func(o *apiclient.Object) ([]string, error) { return []string{o.Metadata.Labels["app"]}, nil }))
	inf := m.Informer(sites)
	lister := controller.Lister[site](m)
	done := make(chan struct{})
	_, err = controller.New(m, "vandal", controller.Options{}).For(sites).Complete(controller.ReconcilerFunc(
		func(ctx context.Context, req controller.Request) (controller.Result, error) {
			if req.Name != "a" {
				return controller.Result{}, nil
			}
			defer close(done)
			s, err := lister.Get(req.Namespace, req.Name)
			if err != nil {
				return controller.Result{}, err
			}
			// The helpers, handed what the cache gave.
			status.SetCondition(&s.Status.Conditions, status.Condition{Type: "Ready", Status: "True", Reason: "Done"}, time.Now())
			_ = controller.ChildOf(s, "child")
			_ = finalizer.Add(ctx, m.Client(), s, "keep.example.com/x") // present: nothing to do, nothing changed
			// Then change everything by hand.
			vandalize(&s.ObjectMeta)
			*s.Spec.Replicas = 99
			s.Spec.Tags[0] = "changed"
			s.Spec.Env["k"] = "changed"
			s.Spec.Extra["nested"].(map[string]any)["deep"].([]any)[0] = "changed"
			s.Status.Conditions[0].Status = "Unknown"
			if list, err := lister.List(); err == nil {
				for _, v := range list {
					vandalize(&v.ObjectMeta)
				}
			}
			if o, err := inf.Get(req.Namespace, req.Name); err == nil {
				vandalize(&o.Metadata)
			}
			for _, o := range inf.List() {
				vandalize(&o.Metadata)
			}
			if objs, err := inf.ByIndex("app", "web"); err == nil {
				for _, o := range objs {
					vandalize(&o.Metadata)
				}
			}
			return controller.Result{}, nil
		}))
	must(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- m.Run(ctx) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second): // a watchdog, not a timing assertion
		t.Fatal("the reconcile never ran")
	}
	cancel()
	must(t, <-stopped)

	for _, name := range []string{"a", "b"} {
		onServer, err := c.Resource(sites).Namespace("default").Get(context.Background(), name)
		must(t, err)
		cached, err := inf.Get("default", name)
		if err != nil {
			t.Fatalf("%s is not cached", name)
		}
		if got, want := canonical(t, cached), canonical(t, onServer); got != want {
			t.Errorf("%s: the cache differs from the server after the reconcile:\ncache  %s\nserver %s", name, got, want)
		}
		if v, err := lister.Get("default", name); err != nil || *v.Spec.Replicas != 2 || v.Spec.Tags[0] != "t1" || v.Status.Conditions[0].Status != "False" {
			t.Errorf("%s as the Lister decodes it now: %+v, %v", name, v, err)
		}
	}
}

// vandalize changes every member of m that can be shared.
func vandalize(m *apiclient.ObjectMeta) {
	m.Name += "-changed"
	maps.DeleteFunc(m.Labels, func(string, string) bool { return true })
	if m.Annotations != nil {
		m.Annotations["note"] = "changed"
	}
	if len(m.Finalizers) > 0 {
		m.Finalizers[0] = "changed"
	}
	if len(m.OwnerReferences) > 0 {
		m.OwnerReferences[0].Name = "changed"
		*m.OwnerReferences[0].Controller = false
	}
	if m.CreationTimestamp != nil {
		m.CreationTimestamp.Time = time.Time{}
	}
	m.Finalizers = slices.Insert(m.Finalizers, 0, "more")
}

// canonical is an object's JSON with managedFields left out, members sorted.
func canonical(t *testing.T, o *apiclient.Object) string {
	t.Helper()
	c := o.Copy()
	c.Metadata.ManagedFields = nil
	var v any
	must(t, json.Unmarshal(c.Raw(), &v))
	b, err := json.Marshal(v)
	must(t, err)
	return string(b)
}
