package leasetest_test

import (
	"context"
	"slices"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/leaderelection"
	"github.com/kubewire/kubewire/controller/leaderelection/leasetest"
)

// The fake answers as kube-apiserver does, as seen through apiclient's typed errors.
func TestServer_answers_like_the_API_server(t *testing.T) {
	srv := leasetest.NewServer(t)
	leases := apiclient.NewTyped[leaderelection.Lease](srv.Client(t, nil).Resource(apiclient.Leases).Namespace("default"))
	ctx := context.Background()

	if _, err := leases.Get(ctx, "lock"); !apiclient.IsNotFound(err) {
		t.Fatalf("Get of a missing lease = %v, want NotFound", err)
	}
	l := &leaderelection.Lease{Metadata: apiclient.ObjectMeta{Name: "lock"}, Spec: leaderelection.LeaseSpec{HolderIdentity: "a"}}
	created, err := leases.Create(ctx, l, apiclient.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if created.Metadata.ResourceVersion != "1" || created.Metadata.Namespace != "default" || created.Kind != "Lease" {
		t.Fatalf("created %+v", created)
	}
	if _, err := leases.Create(ctx, l, apiclient.WriteOptions{}); !apiclient.IsAlreadyExists(err) {
		t.Fatalf("second Create = %v, want AlreadyExists", err)
	}

	next := *created
	next.Spec.HolderIdentity = "b"
	updated, err := leases.Update(ctx, &next, apiclient.WriteOptions{})
	if err != nil || updated.Metadata.ResourceVersion != "2" {
		t.Fatalf("Update = %+v, %v; want resourceVersion 2", updated, err)
	}
	if _, err := leases.Update(ctx, &next, apiclient.WriteOptions{}); !apiclient.IsConflict(err) {
		t.Fatalf("Update from resourceVersion 1 = %v, want Conflict", err)
	}

	srv.Fail(503)
	if _, err := leases.Get(ctx, "lock"); apiclient.CodeOf(err) != 503 {
		t.Fatalf("Get while failing = %v, want 503", err)
	}
	srv.Fail(0)

	want := []string{
		"GET default/lock 404", "POST default/lock 201", "POST default/lock 409",
		"PUT default/lock 200", "PUT default/lock 409", "GET default/lock 503",
	}
	if got := srv.Requests(); !slices.Equal(got, want) {
		t.Fatalf("requests %q, want %q", got, want)
	}
	if got, _ := srv.Lease("default", "lock"); got.Spec.HolderIdentity != "b" {
		t.Fatalf("stored holder %q, want b", got.Spec.HolderIdentity)
	}
}
