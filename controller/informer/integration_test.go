package informer_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/realtest"
	"github.com/kubewire/kubewire/controller/informer"
)

// TestIntegration_informer_waits_for_a_CRD_that_is_not_installed_yet: an informer
// on a custom resource whose CRD does not exist gets a 404 for every LIST; it stays
// unsynced with an empty cache however often it tries (a controller that deletes
// orphans must not start). Once the CRD is created it syncs and sees the objects.
// Runs against KUBEWIRE_TEST_KUBECONFIG; skips without it.
func TestIntegration_informer_waits_for_a_CRD_that_is_not_installed_yet(t *testing.T) {
	c, _ := realtest.Client(t, apiclient.Options{QPS: -1})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	group := realtest.Name("c404") + ".it.kubewire.dev"
	gadgets := apiclient.Resource{Group: group, Version: "v1", Name: "gadgets", Kind: "Gadget", Namespaced: true}

	var notFound atomic.Int32
	lists := make(chan struct{}, 100)
	c = c.Derive(apiclient.Derived{Observer: apiclient.Observer{Answered: func(_ context.Context, r apiclient.RequestInfo) {
		if r.Verb == "GET" && r.Code == 404 && strings.Contains(r.URL, "/apis/"+group+"/v1/gadgets") {
			notFound.Add(1)
			select {
			case lists <- struct{}{}:
			default:
			}
		}
	}}})
	inf := informer.New(informer.Options{Client: c, Resource: gadgets, Logger: quietLog})
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()

	// Two 404s: the first was handled (the Reflector backed off and tried again)
	// before the second was sent.
	for range 2 {
		select {
		case <-lists:
		case <-ctx.Done():
			t.Fatal("no 404 for the LIST of a resource whose CRD does not exist")
		}
	}
	if inf.HasSynced() || inf.Len() != 0 {
		t.Fatalf("after %d 404s: synced %v with %d objects; want unsynced and empty", notFound.Load(), inf.HasSynced(), inf.Len())
	}

	crds := c.Resource(apiclient.CRDs)
	crd := fmt.Sprintf(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
 "metadata":{"name":"gadgets.%s"},
 "spec":{"group":%q,"scope":"Namespaced","names":{"plural":"gadgets","singular":"gadget","kind":"Gadget"},
  "versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`, group, group)
	if _, err := crds.Create(ctx, []byte(crd), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = crds.Delete(context.Background(), "gadgets."+group, apiclient.DeleteOptions{}) })
	// Added now, not before the check above: a handler's own sync would lag the
	// informer's, and the check must not depend on when its goroutine runs.
	added := make(chan string, 10)
	inf.AddHandler("test", informer.HandlerFuncs{AddFunc: func(o *apiclient.Object, _ bool) { added <- o.Key() }}, 0)
	// The Reflector keeps trying; its first LIST that the server answers with the
	// (empty) list of gadgets syncs the informer.
	if !inf.WaitForCacheSync(ctx) {
		t.Fatal("never synced after the CRD was created")
	}
	ns := realtest.Namespace(t, c, "c404")
	body := fmt.Sprintf(`{"apiVersion":"%s/v1","kind":"Gadget","metadata":{"name":"g1"}}`, group)
	if _, err := c.Resource(gadgets).Namespace(ns).Create(ctx, []byte(body), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case key := <-added:
		if want := ns + "/g1"; key != want {
			t.Fatalf("added %s, want %s", key, want)
		}
	case <-ctx.Done():
		t.Fatal("the gadget never reached the handler")
	}
}
