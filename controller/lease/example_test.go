package lease_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/controller/lease"
)

// Replica a takes a Lease, renews it, and releases it; replica b, watching,
// sees it held (on b's own clock), then free, and takes it.
func ExampleHolder() {
	ctx, clock := context.Background(), clock.NewFake()
	start := clock.Now()
	srv := apitest.NewServer(nil) // an API server in memory
	srv.CreateNamespaces("ops")
	defer srv.Close()
	client, _ := srv.Client(apiclient.Options{})
	holder := func(id string) *lease.Holder {
		return lease.NewHolder(lease.HolderConfig{Client: client, Namespace: "ops", Name: "lock", Identity: id,
			LeaseDuration: 2900 * time.Millisecond, RenewDeadline: 2 * time.Second, Clock: clock})
	}
	a, b := holder("a"), holder("b")
	watch := lease.NewObserver(2900*time.Millisecond, nil)
	read := func() lease.Sighting {
		obj, _ := client.Resource(apiclient.Leases).Namespace("ops").Get(ctx, "lock")
		return watch.SeeObject(obj, clock.Now())
	}

	l, _ := a.Take(ctx, nil) // there is none: a creates it
	fmt.Printf("a took it: holder=%s leaseDurationSeconds=%d transitions=%d\n",
		l.Spec.HolderIdentity, l.Spec.LeaseDurationSeconds, l.Spec.LeaseTransitions)
	seen := read()
	fmt.Println("b sees it held:", seen.Held(clock.Now()), "for", seen.Honoured)

	clock.Step(time.Second)
	_, err := a.Renew(ctx)
	fmt.Printf("a renewed: %v; it acts until +%s\n", err, a.Deadline().Sub(start))

	_, err = b.Take(ctx, seen.Lease) // b ignores what it saw: the server refuses
	fmt.Println("b takes it anyway:", errors.Is(err, lease.ErrRace))

	_, _ = a.Release(ctx)
	seen = read()
	fmt.Println("b sees it held:", seen.Held(clock.Now()))
	l, _ = b.Take(ctx, seen.Lease)
	fmt.Printf("b took it: holder=%s transitions=%d\n", l.Spec.HolderIdentity, l.Spec.LeaseTransitions)
	// Output:
	// a took it: holder=a leaseDurationSeconds=3 transitions=0
	// b sees it held: true for 3s
	// a renewed: <nil>; it acts until +3s
	// b takes it anyway: true
	// b sees it held: false
	// b took it: holder=b transitions=1
}
